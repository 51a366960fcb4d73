import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot, startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

const doc = {
  defaults: { tokens_per_run: 50_000, tool_calls_per_run: 10, seconds_per_run: 120, tokens_per_day: null },
  agents: {
    researcher: { tokens_per_run: 200_000, tokens_per_day: 2_000_000 },
    'mail-triage': { tool_calls_per_run: 3 },
  },
};
const lastAudit = (srv: TestServer) =>
  srv.server.db
    .prepare("SELECT * FROM audit WHERE action = 'agent.budgets.update' ORDER BY seq DESC LIMIT 1")
    .get() as Record<string, unknown>;

describe('agent budgets', () => {
  it('starts from the config defaults, missing values unlimited', async () => {
    const res = await s.call('GET', '/agent/budgets', { role: 'auditor' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      defaults: { tokens_per_run: 20000, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null },
      agents: {},
      updated_at: null,
      updated_by: null,
    });
  });

  it('replaces the whole document, reads it back and audits which values changed', async () => {
    const put = await s.call('PUT', '/agent/budgets', { role: 'app_owner', body: doc });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ ...doc, updated_by: 'olga-owner' });
    const get = await s.call('GET', '/agent/budgets');
    expect(get.json).toEqual(put.json);

    const audit = lastAudit(s);
    expect(audit).toMatchObject({ outcome: 'success', target_type: 'budgets', actor_subject: 'olga-owner' });
    expect(JSON.parse(audit.details as string).changes).toEqual([
      { field: 'defaults.tokens_per_run', from: 20000, to: 50000 },
      { field: 'defaults.tool_calls_per_run', from: 20, to: 10 },
      { field: 'defaults.seconds_per_run', from: 300, to: 120 },
      { field: 'agents.researcher.tokens_per_run', to: 200000 },
      { field: 'agents.researcher.tokens_per_day', to: 2000000 },
      { field: 'agents.mail-triage.tool_calls_per_run', to: 3 },
    ]);

    // a replace drops overrides that are not sent again
    const next = { defaults: doc.defaults, agents: { researcher: { tokens_per_run: 100_000 } } };
    const again = await s.call('PUT', '/agent/budgets', { body: next });
    expect(again.json.agents).toEqual(next.agents);
    expect(JSON.parse(lastAudit(s).details as string).changes).toEqual([
      { field: 'agents.researcher.tokens_per_run', from: 200000, to: 100000 },
      { field: 'agents.researcher.tokens_per_day', from: 2000000 },
      { field: 'agents.mail-triage.tool_calls_per_run', from: 3 },
    ]);
    await s.call('PUT', '/agent/budgets', { body: doc });
  });

  it('rejects unknown fields, negatives, fractions and missing defaults with 400 and stores nothing', async () => {
    const before = snapshot(s, 'app_state');
    const bad = [
      { ...doc, extra: 1 },
      { ...doc, defaults: { ...doc.defaults, tokens_per_hour: 5 } },
      { ...doc, defaults: { ...doc.defaults, tokens_per_run: -1 } },
      { ...doc, defaults: { ...doc.defaults, seconds_per_run: 1.5 } },
      { ...doc, agents: { researcher: { tokens_per_run: -5 } } },
      { ...doc, agents: { 'bad name!': {} } },
      { agents: {} },
    ];
    for (const body of bad) {
      const res = await s.call('PUT', '/agent/budgets', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.code).toBe('SVC-ADMIN-400');
    }
    const neg = await s.call('PUT', '/agent/budgets', {
      body: { ...doc, defaults: { ...doc.defaults, tokens_per_run: -1 } },
    });
    expect(neg.json.invalid_params[0].name).toBe('defaults.tokens_per_run');
    expect(snapshot(s, 'app_state')).toEqual(before);
  });

  it('refuses an auditor with 403, unchanged, and audits the denial', async () => {
    const before = snapshot(s, 'app_state');
    const res = await s.call('PUT', '/agent/budgets', { role: 'auditor', body: { ...doc, agents: {} } });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('SVC-ADMIN-403');
    expect(snapshot(s, 'app_state')).toEqual(before);
    expect(lastAudit(s)).toMatchObject({
      outcome: 'denied',
      status: 403,
      actor_role: 'auditor',
      target_type: 'budgets',
    });
  });

  it('keeps the budgets across a restart', async () => {
    const first = await startTestServer();
    const put = await first.call('PUT', '/agent/budgets', { body: doc });
    await first.close();
    const again = await startTestServer({ dataDir: first.dataDir });
    try {
      const get = await again.call('GET', '/agent/budgets');
      expect(get.json).toEqual(put.json);
    } finally {
      await again.close();
    }
  });
});
