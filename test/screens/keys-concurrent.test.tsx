import { describe, expect, it } from 'vitest';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';

/**
 * Two operators on the same key: a quota save writes only the values this operator changed,
 * asks before overwriting a value both changed, and a revoke of a key someone else revoked
 * meanwhile says so instead of claiming it.
 */
const suite = setupScreenSuite({
  setup: async (s) => {
    for (const [name, quota] of [
      ['quota-key', { requests_per_minute: 60, tokens_per_minute: 40000 }],
      ['gone-key', {}],
    ] as const) {
      expect((await s.call('POST', '/gateway/keys', { body: { name, quota } })).status).toBe(201);
    }
  },
});

interface KeyRow {
  id: string;
  status: string;
  revoked_at: string | null;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  tokens_per_day: number | null;
}
const keyNamed = (name: string) => suite.db.prepare('SELECT * FROM gateway_keys WHERE name = ?').get(name) as KeyRow;
const quotaOf = (k: KeyRow) => ({
  requests_per_minute: k.requests_per_minute,
  tokens_per_minute: k.tokens_per_minute,
  tokens_per_day: k.tokens_per_day,
});

/** What another operator (app_owner) saves while the form is open. */
async function otherOperatorSetsQuota(change: Partial<ReturnType<typeof quotaOf>>) {
  const k = keyNamed('quota-key');
  const res = await suite.server.call('PUT', `/gateway/keys/${k.id}/quota`, {
    role: 'app_owner',
    body: { ...quotaOf(k), ...change },
  });
  expect(res.status).toBe(200);
}

async function openQuota(d: DashboardHarness) {
  await d.press('u');
  return d.waitForText('Quota for quota-key');
}

describe("keys: changes onto another operator's change", () => {
  it('a quota save writes only the value changed here; a concurrent change to another value survives', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('quota-key');
    await selectRow(d, 'quota-key');
    const form = await openQuota(d);
    expect(form).toMatch(/Requests \/ minute\s+60/);
    await otherOperatorSetsQuota({ tokens_per_day: 300000 });
    await d.press('backspace', 'backspace');
    await d.type('10');
    await d.press('enter');
    await d.waitForText('Quota saved');
    expect(quotaOf(keyNamed('quota-key'))).toEqual({
      requests_per_minute: 10,
      tokens_per_minute: 40000,
      tokens_per_day: 300000,
    });
    const entry = suite
      .auditRows()
      .filter((r) => r.action === 'gateway.key.quota' && r.actor_subject === 'alice-admin')
      .at(-1)!;
    expect(JSON.parse(entry.details)).toMatchObject({
      from: { tokens_per_day: 300000 },
      to: { tokens_per_day: 300000, requests_per_minute: 10 },
    });
  });

  it('a value both changed: theirs vs yours is shown; Cancel saves nothing, Overwrite saves yours', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('quota-key');
    await selectRow(d, 'quota-key');
    await openQuota(d);
    await otherOperatorSetsQuota({ requests_per_minute: 20 });
    await d.press('backspace', 'backspace');
    await d.type('30');
    await d.press('enter');
    const ask = await d.waitForText('changed since you opened the form');
    expect(ask).toContain('The quota of quota-key');
    expect(ask).toMatch(/Requests \/ minute\s+theirs 20 · yours 30 \(was 10\)/);
    await d.press('enter'); // Cancel
    await d.waitForText('Nothing saved');
    expect(keyNamed('quota-key').requests_per_minute).toBe(20);
    await d.press('enter');

    await openQuota(d);
    await otherOperatorSetsQuota({ requests_per_minute: 25 });
    await d.press('backspace', 'backspace');
    await d.type('30');
    await d.press('enter');
    await d.waitForText('changed since you opened the form');
    await d.press('right', 'enter');
    await d.waitForText('Quota saved');
    expect(quotaOf(keyNamed('quota-key'))).toEqual({
      requests_per_minute: 30,
      tokens_per_minute: 40000,
      tokens_per_day: 300000,
    });
  });

  it('revoking a key someone else revoked meanwhile says it was already revoked, by whom and when', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('gone-key');
    await selectRow(d, 'gone-key');
    await d.press('x');
    await d.waitForText('Type gone-key to confirm');
    const id = keyNamed('gone-key').id;
    expect((await suite.server.call('POST', `/gateway/keys/${id}/revoke`, { role: 'app_owner' })).status).toBe(200);
    const revokedAt = keyNamed('gone-key').revoked_at!;
    await d.type('gone-key');
    await d.press('enter');
    const f = (await d.waitForText('Key was already revoked')).replace(/[│\s]+/g, ' ');
    expect(f).not.toContain('Key revoked');
    expect(f).toContain('▲ NOTE');
    expect(f).toMatch(
      new RegExp(
        `gone-key \\(${id}\\) had already been revoked by olga-owner \\(app_owner\\) at ${revokedAt}; your revoke changed nothing`,
      ),
    );
    expect(f).toContain('already_revoked: true'); // the audit entry's details, shown
    expect(keyNamed('gone-key').revoked_at).toBe(revokedAt);
  });
});
