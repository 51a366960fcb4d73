/** The audit chain's state: always on the board, a break or a check not made among the problems. */
import type { Deployment } from '../../contract/index.js';
import { chainBroken, chainCheckOf, type ChainCheck } from '../audit-trail/audit-chain.js';
import type { PinnedAuditKey } from '../kit/screen-api.js';
import { objects } from './answers.js';
import { n, NOW, type TriageLine } from './line.js';

/** The component /deployment names for the appliance's own check of its trail before it signs. */
export const CHAIN_COMPONENT = 'audit-chain';

/**
 * The newest audit page and checkpoint list, as served (ResourceEntry `served`), checked
 * (docs/audit-chain.md) once the page arrived; with the pinned key when there is one.
 */
export function chainOf(page: unknown, checkpoints: unknown, auditKey?: PinnedAuditKey): ChainCheck | undefined {
  if (page === undefined) return undefined;
  return chainCheckOf(page, checkpoints, { whole: true, ...(auditKey ? { auditKey } : {}) });
}

/**
 * The chain's state, always on the board and short: the newest entries checked (or V's verify of the
 * whole trail) with its newest signed checkpoint and whether the key it verified with was pinned (OK); broken (CRIT, Enter opens the audit
 * screen); not checked (WARN: the pinned key file holds no usable key). When the appliance itself
 * refuses its trail (its audit-chain component is down), that line says so and this one is left out.
 */
export function chainStateLine(
  check: ChainCheck | undefined,
  dep: Deployment | undefined,
  listRead: boolean,
): TriageLine | null {
  if (!check) return null;
  const base = { key: 'audit-chain', count: null, window: NOW, link: { screen: 'audit' } };
  if (!check.ok && chainBroken(check))
    return {
      ...base,
      severity: 'crit',
      what: `Audit chain broken${check.seq === null ? '' : ` at #${n(check.seq)}`}`,
      // the finding says what broke (an entry, a checkpoint, a key that is not the pinned one): V says the rest
      reason: `${check.finding} (V on the audit screen verifies the whole trail)`,
    };
  if (!check.ok) return { ...base, severity: 'warn', what: 'Audit chain not checked', reason: check.finding };
  const refused = objects<Deployment['components'][number]>(dep?.components).some(
    (c) => c.name === CHAIN_COMPONENT && c.status === 'down',
  );
  // an intact page says nothing of the checkpoints until their list is read (its source line says so)
  if (refused || check.lastSeq === null || !listRead) return null;
  // short, to be read whole at 80 columns: the audit screen says how old the checkpoint is
  const c = check.checkpoint?.checkpoint;
  const signed = c
    ? `checkpoint #${n(c.seq)} ${check.pinned ? 'by the pinned key' : 'by a key not pinned'}`
    : 'no signed checkpoint yet';
  // what was checked is the newest page, not the trail: V verifies the whole of it
  const checked = check.verified
    ? `verified to #${n(check.verified.lastSeq)}`
    : `newest entries check out (to #${n(check.lastSeq)})`;
  return { ...base, severity: 'ok', what: 'Audit chain', reason: `${checked} · ${signed}` };
}

/** The appliance's own check of its trail before it signs: /deployment's audit-chain component. */
export function chainComponentLine(c: Deployment['components'][number]): TriageLine {
  const down = c.status === 'down';
  return {
    key: `component:${c.name}`,
    severity: down ? 'crit' : 'warn',
    what: 'Audit chain',
    reason: `${down ? 'refused by the appliance' : 'checkpoints not signed'}${c.message ? `: ${c.message}` : ''}`,
    count: null,
    window: NOW,
    link: { screen: 'deployment' },
  };
}
