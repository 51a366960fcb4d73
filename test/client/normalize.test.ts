import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { readTolerantly, toSnake } from '../../src/client/normalize.js';
import { Budgets, ConnectorList, GatewayKeyList, IngestAccepted, Job, Settings } from '../../src/contract/index.js';

const connector = {
  id: 'conn_1',
  name: 'Share',
  kind: 'document-sharing',
  state: 'healthy',
  last_sync: { at: '2026-11-21T09:30:00Z', status: 'succeeded', job_id: 'job_1', items: 3, error: null },
  rbac_labels: ['staff'],
  sources: [{ id: 'src_1', name: 'Docs' }],
};

describe('tolerant reading', () => {
  it("checks a schema's first answer (without zod's compiled fast path) as strictly as later ones", () => {
    const Item = z.object({ id: z.string(), n: z.number().int(), tags: z.array(z.object({ k: z.string() })) });
    const Page = z.object({ data: z.array(Item), next_cursor: z.string().nullable(), has_more: z.boolean() });
    const bad = { data: [{ id: 'a', n: 1.5, tags: [{ k: 'x' }, {}] }], next_cursor: null, has_more: false };
    const good = { data: [{ id: 'a', n: 1, tags: [{ k: 'x' }] }], next_cursor: null, has_more: false };
    const first = readTolerantly(Page, bad).issues;
    expect(first.map((i) => i.path)).toEqual(['data.0.n', 'data.0.tags.1.k']);
    for (let i = 0; i < 3; i++) {
      expect(readTolerantly(Page, bad).issues).toEqual(first);
      expect(readTolerantly(Page, good).issues).toEqual([]);
    }
    const Other = z.object({ data: z.array(Item), next_cursor: z.string().nullable(), has_more: z.boolean() });
    expect(readTolerantly(Other, good).issues).toEqual([]);
    expect(readTolerantly(Other, bad).issues).toEqual(first);
  });

  it('snake-cases camelCase names', () => {
    expect(toSnake('lastSyncAt')).toBe('last_sync_at');
    expect(toSnake('rbacLabels')).toBe('rbac_labels');
    expect(toSnake('HTTPStatus')).toBe('http_status');
    expect(toSnake('next-cursor')).toBe('next_cursor');
  });

  it('accepts the contract shape unchanged', () => {
    const r = readTolerantly(ConnectorList, { data: [connector], next_cursor: null, has_more: false });
    expect(r.issues).toEqual([]);
    expect(r.value).toEqual({ data: [connector], next_cursor: null, has_more: false });
  });

  it('accepts a bare array and an items envelope', () => {
    const bare = readTolerantly(ConnectorList, [connector]);
    expect(bare.issues).toEqual([]);
    expect(bare.value).toEqual({ data: [connector], next_cursor: null, has_more: false });
    const items = readTolerantly(ConnectorList, { items: [connector], nextCursor: 'c2' });
    expect(items.issues).toEqual([]);
    expect(items.value).toMatchObject({ data: [connector], next_cursor: 'c2', has_more: true });
  });

  it('maps camelCase, status→state and last_sync_at→last_sync.at, keeping unknown fields as sent', () => {
    const raw = {
      id: 'conn_1',
      name: 'Share',
      kind: 'document-sharing',
      status: 'HEALTHY',
      lastSyncAt: 1795300000,
      lastSyncStatus: 'succeeded',
      lastSyncJobId: 'job_1',
      lastSyncItems: 3,
      labels: ['staff'],
      sources: [{ id: 'src_1', name: 'Docs' }],
      vendorExtra: { nestedThing: 1 },
    };
    const r = readTolerantly(ConnectorList, { items: [raw] });
    expect(r.issues).toEqual([]);
    const c = (r.value as { data: Record<string, unknown>[] }).data[0];
    expect(c.state).toBe('healthy');
    expect(c.last_sync).toEqual({
      at: new Date(1795300000 * 1000).toISOString(),
      status: 'succeeded',
      job_id: 'job_1',
      items: 3,
      error: null,
    });
    expect(c.rbac_labels).toEqual(['staff']);
    expect(c.vendorExtra).toEqual({ nestedThing: 1 }); // unknown: untouched, for the detail view
  });

  it('fills a missing nullable field with null and a missing list with []', () => {
    const { id, name, kind, state, sources } = connector;
    const r = readTolerantly(ConnectorList, [{ id, name, kind, state, sources }]);
    expect(r.issues).toEqual([]);
    expect((r.value as { data: Record<string, unknown>[] }).data[0]).toMatchObject({
      last_sync: null,
      rbac_labels: [],
    });
  });

  it('maps LiteLLM-style quota names and an id alias', () => {
    const key = {
      id: 'key_1',
      name: 'k',
      status: 'active',
      keyPrefix: 'agk_x',
      createdAt: '2026-11-21T09:30:00+00:00',
      createdBy: 'a',
      revokedAt: null,
      lastUsed: null,
      quota: { rpm_limit: 5, tpm_limit: null, tpd: 100 },
    };
    const r = readTolerantly(GatewayKeyList, [key]);
    expect(r.issues).toEqual([]);
    expect((r.value as { data: Record<string, unknown>[] }).data[0]).toMatchObject({
      prefix: 'agk_x',
      created_at: '2026-11-21T09:30:00.000Z',
      last_used_at: null,
      quota: { requests_per_minute: 5, tokens_per_minute: null, tokens_per_day: 100 },
    });
    expect(readTolerantly(IngestAccepted, { accepted: true, id: 'job_9' }).value).toEqual({
      accepted: true,
      job_id: 'job_9',
    });
  });

  it('leaves the keys of free-form maps alone (agent names, setting values)', () => {
    const b = readTolerantly(Budgets, {
      defaults: { tokensPerRun: 1, toolCallsPerRun: 2, secondsPerRun: 3, tokensPerDay: null },
      agents: { supportBot: { tokensPerRun: 5 }, 'hr-helper': {} },
      updatedAt: null,
      updatedBy: null,
    });
    expect(b.issues).toEqual([]);
    expect(b.value).toMatchObject({
      agents: { supportBot: { tokens_per_run: 5 }, 'hr-helper': {} },
      defaults: { tokens_per_run: 1 },
    });
    // an absent override field inherits the default: it stays absent, it does not become null (unlimited)
    expect((b.value as { agents: unknown }).agents).toEqual({ supportBot: { tokens_per_run: 5 }, 'hr-helper': {} });
    const st = readTolerantly(Settings, { sections: [{ name: 'net', values: { httpProxy: 'x' } }] });
    expect(st.value).toEqual({ sections: [{ name: 'net', values: { httpProxy: 'x' } }] });
  });

  it('reports a contract mismatch as issues instead of throwing, data kept', () => {
    const r = readTolerantly(Job, { job_id: 'job_1', state: 'exploded', created_at: 'yesterday-ish' });
    expect(r.issues.length).toBeGreaterThan(0);
    expect(r.issues.map((i) => i.path)).toContain('state');
    expect(r.value).toMatchObject({ job_id: 'job_1', state: 'exploded' });
    expect(readTolerantly(ConnectorList, 'not json at all').issues.length).toBeGreaterThan(0);
  });
});
