import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/client/exchange-log.js';
import { equivalentCommand } from '../../src/client/equivalent-command.js';
import { ACTION_LOG_MAX, createActionLog, recordExchange } from '../../src/dashboard/state/action-log.js';

const base: Exchange = {
  at: Date.parse('2026-11-26T10:00:00Z'),
  route: 'createKey',
  method: 'POST',
  path: '/v1/admin/gateway/keys',
  url: 'https://appliance.example/v1/admin/gateway/keys',
  appliance: 'https://appliance.example',
  status: 201,
  requestId: 'req_1',
  error: null,
};

describe('equivalent command', () => {
  it('is curl with $TOKEN, the body without any field named secret, token or password, quoted for a shell', () => {
    const cmd = equivalentCommand({
      ...base,
      body: { name: "ops' key", secret: 's1', nested: [{ api_token: 't1', Password: 'p1', keep: 1 }] },
    });
    expect(cmd).toBe(
      `curl -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' ` +
        `'https://appliance.example/v1/admin/gateway/keys' -d '{"name":"ops'\\''` +
        ` key","nested":[{"keep":1}]}'`,
    );
    for (const s of ['s1', 't1', 'p1']) expect(cmd).not.toContain(s);
  });

  it('an export the CLI can make is `appliance-admin export`; one with a filter it lacks is curl -o', () => {
    const exp = (query: Record<string, unknown>): Exchange => ({
      ...base,
      route: 'exportAudit',
      method: 'GET',
      path: '/v1/admin/audit/export',
      url: 'https://appliance.example/v1/admin/audit/export?format=csv',
      download: { dest: '/tmp/a b.csv', query },
    });
    expect(equivalentCommand(exp({ format: 'csv', start_time: '2026-11-25T00:00:00Z', actor: 'alice' }))).toBe(
      `appliance-admin export audit -o '/tmp/a b.csv' --format 'csv' --since '2026-11-25T00:00:00Z' ` +
        `--actor 'alice' --url 'https://appliance.example' --token-file FILE`,
    );
    expect(equivalentCommand(exp({ format: 'jsonl', request_id: 'req_7' }))).toBe(
      `appliance-admin export audit -o '/tmp/a b.csv' --format 'jsonl' --request-id 'req_7' ` +
        `--url 'https://appliance.example' --token-file FILE`,
    );
    expect(equivalentCommand(exp({ format: 'csv', q: 'x' }))).toBe(
      `curl -H "Authorization: Bearer $TOKEN" -o '/tmp/a b.csv' 'https://appliance.example/v1/admin/audit/export?format=csv'`,
    );
  });
});

describe('action log store', () => {
  it('keeps changes and exports, newest first, at most ACTION_LOG_MAX; a GET poll is not kept', () => {
    const log = createActionLog();
    recordExchange(log, { ...base, route: 'listKeys', method: 'GET' });
    expect(log.getState().entries).toEqual([]);
    for (let i = 0; i < ACTION_LOG_MAX + 5; i++) recordExchange(log, { ...base, requestId: `req_${i}` });
    const entries = log.getState().entries;
    expect(entries).toHaveLength(ACTION_LOG_MAX);
    expect(entries[0].requestId).toBe(`req_${ACTION_LOG_MAX + 4}`);
    expect(entries.at(-1)!.requestId).toBe('req_5');
  });
});
