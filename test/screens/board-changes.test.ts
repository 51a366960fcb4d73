import { describe, expect, it } from 'vitest';
import type { Connector } from '../../src/contract/index.js';
import { boardChanges } from '../../src/dashboard/triage/changes.js';
import { TRIAGE_SOURCES, type TriageInput, type TriageSource } from '../../src/dashboard/triage/sources.js';
import { triage } from '../../src/dashboard/triage/triage.js';

/**
 * What `watch` and the dashboard's notice call a change, on boards made by triage() itself: a
 * connector in error is a CRIT; the connectors' answer failing is not that CRIT cleared.
 */
const connector = (state: Connector['state']) =>
  ({ id: 'conn_crm', name: 'Cloud CRM', kind: 'crm', state, rbac_labels: [], last_sync: null }) as unknown as Connector;

/** Every source read (empty), the connectors as given: `null` for an answer that failed. */
function board(connectors: Connector[] | null) {
  const input: TriageInput = {};
  for (const id of Object.keys(TRIAGE_SOURCES) as TriageSource[]) input[id] = { state: 'ok', data: { data: [] } };
  input.deployment = { state: 'ok', data: { status: 'healthy', components: [] } };
  input.connectors =
    connectors === null
      ? { state: 'error', error: 'SVC-ADMIN-503: unavailable' }
      : { state: 'ok', data: { data: connectors } };
  return triage(input);
}

const kinds = (r: ReturnType<typeof boardChanges>) => r.changes.map((c) => `${c.kind} ${c.now} ${c.line.key}`);

describe('boardChanges', () => {
  it('new, changed and cleared, keyed by the line; the first board is all new', () => {
    const first = boardChanges(null, board([connector('error')]));
    expect(kinds(first)).toEqual(['new crit connector:conn_crm']);
    const degraded = boardChanges(first.memory, board([connector('degraded')]));
    expect(kinds(degraded)).toEqual(['changed warn connector:conn_crm']);
    expect(degraded.changes[0].was).toBe('crit');
    expect(kinds(boardChanges(degraded.memory, board([connector('degraded')])))).toEqual([]);
    const healthy = boardChanges(degraded.memory, board([connector('healthy')]));
    expect(kinds(healthy)).toEqual(['cleared ok connector:conn_crm']);
    expect(healthy.changes[0].was).toBe('warn');
  });

  it('a line gone because its source could not be read is held, not cleared, until the source is read again', () => {
    const crit = boardChanges(null, board([connector('error')]));
    const blind = boardChanges(crit.memory, board(null));
    // the source not read is a change of its own; the CRIT is not said cleared
    expect(kinds(blind)).toEqual(['new unknown source:connectors']);
    const stillBlind = boardChanges(blind.memory, board(null));
    expect(kinds(stillBlind)).toEqual([]);
    // read again, still in error: nothing new about the connector
    expect(kinds(boardChanges(stillBlind.memory, board([connector('error')])))).toEqual([
      'cleared ok source:connectors',
    ]);
    // read again, healthy: now it is cleared
    expect(kinds(boardChanges(stillBlind.memory, board([connector('healthy')])))).toEqual([
      'cleared ok connector:conn_crm',
      'cleared ok source:connectors',
    ]);
  });
});
