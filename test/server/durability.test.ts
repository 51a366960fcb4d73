import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from '../../src/server/db/sqlite-driver.js';
import { Pool } from 'undici';
import { DB_FILE } from '../../src/server/db/open.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { ensureBuilt, issueToken, start, type ChildServer } from '../helpers/child-server.js';

/**
 * Issue 5, point 4: SIGKILL the server during 1,000 concurrent mutations; after a restart every
 * acknowledged mutation and its audit entry are there, and nothing is half done.
 *
 * The database runs in WAL mode with synchronous=NORMAL. That setting can lose the last
 * transactions on an OS crash or power loss (the WAL is not fsynced on every commit), but not when
 * only the process dies: a commit's WAL pages are in the OS page cache once write() returns. This
 * test kills the process, not the machine, so nothing acknowledged may be missing.
 */
const MUTATIONS = 1000;
const KILL_AFTER_ACKS = 350;
const CONNECTIONS = 4;
const QUOTA_KEYS = 5;
const WORKLOADS = ['chat', 'summarize', 'embed'];
const ROUTED_TO = [null, 'llama-3.1-8b', 'mistral-7b'];
const MODELS = ['llama-3.1-8b', 'mistral-7b'];
const CHANNELS = ['chan_web', 'chan_mail'];

interface Mutation {
  i: number;
  action: string;
  method: 'POST' | 'PUT';
  path: string;
  body: Record<string, unknown>;
  status: number;
}
interface Ack {
  m: Mutation;
  requestId: string;
  body?: Record<string, unknown>;
}
interface AuditRow {
  seq: number;
  action: string;
  target_id: string | null;
  outcome: string;
  status: number;
  request_id: string;
  details: string;
}

let root: string;
let dataDir: string;
let server: ChildServer | undefined;
const quotaKeys: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
  root = tempDir('aa-durable');
  dataDir = join(root, 'data');
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** The i-th mutation of the storm: a mix of every kind, each carrying a value unique to it. */
function mutation(i: number): Mutation {
  switch (i % 6) {
    case 0:
      return {
        i,
        action: 'gateway.key.create',
        method: 'POST',
        path: '/gateway/keys',
        body: { name: `storm-${i}`, quota: { requests_per_minute: i } },
        status: 201,
      };
    case 1:
      return {
        i,
        action: 'gateway.key.quota',
        method: 'PUT',
        path: `/gateway/keys/${quotaKeys[i % QUOTA_KEYS]}/quota`,
        body: { requests_per_minute: i, tokens_per_minute: i * 10, tokens_per_day: null },
        status: 200,
      };
    case 2:
      return {
        i,
        action: 'channel.update',
        method: 'PUT',
        path: '/channels',
        body: { channels: [{ id: CHANNELS[i % 2], enabled: Math.floor(i / 2) % 2 === 0 }] },
        status: 200,
      };
    case 3:
      return {
        i,
        action: 'routing.update',
        method: 'PUT',
        path: `/routing/${WORKLOADS[i % 3]}`,
        body: { model_id: ROUTED_TO[Math.floor(i / 3) % 3] },
        status: 200,
      };
    case 4:
      return {
        i,
        action: 'agent.budgets.update',
        method: 'PUT',
        path: '/agent/budgets',
        body: {
          defaults: { tokens_per_run: i, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null },
          agents: { [`agent-${i % 7}`]: { tokens_per_run: i } },
        },
        status: 200,
      };
    default:
      return {
        i,
        action: 'model.activate',
        method: 'POST',
        path: '/models/activate',
        body: { model_id: MODELS[i % 2] },
        status: 200,
      };
  }
}

describe('durability under SIGKILL', () => {
  it('keeps every acknowledged mutation and its audit entry, and nothing half done', async () => {
    const config = fixtureConfig(root);
    const token = await issueToken(dataDir, 'it_admin', 'storm-admin');
    server = await start(dataDir, { config });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let pool = new Pool(server.url, { connections: CONNECTIONS });

    for (let k = 0; k < QUOTA_KEYS; k++) {
      const res = await pool.request({
        method: 'POST',
        path: '/v1/admin/gateway/keys',
        headers,
        body: JSON.stringify({ name: `quota-target-${k}` }),
      });
      expect(res.statusCode).toBe(201);
      quotaKeys.push(((await res.body.json()) as { id: string }).id);
    }

    const plan = Array.from({ length: MUTATIONS }, (_, i) => mutation(i));
    const acks: Ack[] = [];
    const refused: string[] = [];
    const victim = server;
    let killed: Promise<void> | undefined;
    const outcomes = await Promise.allSettled(
      plan.map(async (m) => {
        const res = await pool.request({
          method: m.method,
          path: `/v1/admin${m.path}`,
          headers,
          body: JSON.stringify(m.body),
        });
        // acknowledged = a 2xx status line received; the body may or may not make it before the kill
        if (res.statusCode < 200 || res.statusCode > 299) {
          refused.push(`${m.action} ${res.statusCode} ${await res.body.text().catch(() => '')}`);
          return;
        }
        const ack: Ack = { m, requestId: String(res.headers['x-request-id']) };
        acks.push(ack);
        // a few ms later, so the kill lands anywhere: mid-transaction, between commit and answer, while idle
        if (acks.length === KILL_AFTER_ACKS)
          killed = new Promise((r) => setTimeout(r, Math.random() * 6)).then(() => victim.kill('SIGKILL'));
        ack.body = (await res.body.json().catch(() => undefined)) as Record<string, unknown> | undefined;
      }),
    );
    await killed;
    expect(await victim.exited).toEqual({ code: null, signal: 'SIGKILL' });
    await pool.destroy();

    expect(refused).toEqual([]);
    expect(acks.length).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    const lost = outcomes.filter((o) => o.status === 'rejected').length;
    expect(lost, 'the kill came before every mutation was answered').toBeGreaterThan(0);
    expect(acks.length + lost).toBe(MUTATIONS);

    server = await victim.restart();
    pool = new Pool(server.url, { connections: 1 });
    const listed = await pool.request({ method: 'GET', path: '/v1/admin/gateway/keys?limit=500', headers });
    expect(listed.statusCode).toBe(200);
    const apiKeys = (
      (await listed.body.json()) as { data: { id: string; name: string; quota: Record<string, number | null> }[] }
    ).data;
    await pool.close();

    const db = new Database(join(dataDir, DB_FILE), { readonly: true });
    try {
      const audit = db
        .prepare(
          "SELECT seq, action, target_id, outcome, status, request_id, details FROM audit WHERE actor_subject = 'storm-admin' ORDER BY seq",
        )
        .all() as AuditRow[];
      expect(audit.filter((a) => a.outcome !== 'success')).toEqual([]);
      const byRequest = new Map(audit.map((a) => [a.request_id, a]));
      const success = (action: string) => audit.filter((a) => a.action === action);
      const details = (a: AuditRow) => JSON.parse(a.details);

      // every acknowledged mutation has its audit entry
      for (const ack of acks) {
        expect(byRequest.get(ack.requestId), `audit of acknowledged ${ack.m.action} #${ack.m.i}`).toMatchObject({
          action: ack.m.action,
          outcome: 'success',
          status: ack.m.status,
        });
      }
      // at most one audit entry per request, and only for requests of the storm
      expect(byRequest.size).toBe(audit.length);
      expect(audit.length).toBeLessThanOrEqual(MUTATIONS + QUOTA_KEYS);

      // keys: a row for every create audited and an audit for every row; acknowledged ones are there
      const keys = db
        .prepare('SELECT id, name, requests_per_minute, tokens_per_minute, tokens_per_day FROM gateway_keys')
        .all() as {
        id: string;
        name: string;
        requests_per_minute: number | null;
        tokens_per_minute: number | null;
        tokens_per_day: number | null;
      }[];
      const created = success('gateway.key.create');
      expect(keys.map((k) => k.id).sort()).toEqual(created.map((a) => a.target_id).sort());
      for (const a of created) expect(keys.find((k) => k.id === a.target_id)?.name).toBe(details(a).name);
      for (const ack of acks.filter((x) => x.m.action === 'gateway.key.create')) {
        const id = byRequest.get(ack.requestId)!.target_id!;
        expect(
          keys.find((k) => k.id === id),
          `acknowledged key #${ack.m.i}`,
        ).toMatchObject({ name: ack.m.body.name, requests_per_minute: ack.m.i });
        if (ack.body) expect(ack.body.id).toBe(id);
      }
      expect(apiKeys.map((k) => k.id).sort()).toEqual(keys.map((k) => k.id).sort());

      // quotas: each acknowledged change was recorded with what it sent; the stored quota is the last one audited
      for (const ack of acks.filter((x) => x.m.action === 'gateway.key.quota')) {
        expect(details(byRequest.get(ack.requestId)!).to).toEqual(ack.m.body);
      }
      for (const id of quotaKeys) {
        const last = success('gateway.key.quota')
          .filter((a) => a.target_id === id)
          .at(-1);
        const key = keys.find((k) => k.id === id)!;
        const stored = {
          requests_per_minute: key.requests_per_minute,
          tokens_per_minute: key.tokens_per_minute,
          tokens_per_day: key.tokens_per_day,
        };
        expect(stored).toEqual(
          last ? details(last).to : { requests_per_minute: null, tokens_per_minute: null, tokens_per_day: null },
        );
      }

      // channels: the stored state is the last audited change, or the config's when none was
      const channels = db.prepare('SELECT id, enabled FROM channels').all() as { id: string; enabled: number }[];
      const changes = success('channel.update').flatMap((a) => details(a).changes as { id: string; to: boolean }[]);
      for (const ack of acks.filter((x) => x.m.action === 'channel.update'))
        expect(details(byRequest.get(ack.requestId)!).requested).toBe(1);
      for (const c of config.channels) {
        const last = changes.filter((x) => x.id === c.id).at(-1);
        expect(channels.find((x) => x.id === c.id)?.enabled === 1, c.id).toBe(last ? last.to : c.enabled);
      }

      // routing: the stored model is the last audited `to`; acknowledged changes were audited with what they sent
      const routing = db.prepare('SELECT workload, model_id FROM routing').all() as {
        workload: string;
        model_id: string | null;
      }[];
      for (const ack of acks.filter((x) => x.m.action === 'routing.update'))
        expect(details(byRequest.get(ack.requestId)!).to).toBe(ack.m.body.model_id);
      for (const w of config.workloads) {
        const last = success('routing.update')
          .filter((a) => a.target_id === w.id)
          .at(-1);
        expect(routing.find((r) => r.workload === w.id)?.model_id, w.id).toBe(last ? details(last).to : w.model_id);
      }

      // budgets: every audited update carried a unique tokens_per_run; the stored one is the last audited
      const budgets = db.prepare("SELECT value FROM app_state WHERE key = 'budgets'").pluck().get() as
        string | undefined;
      const budgetAudits = success('agent.budgets.update');
      const lastBudgetRun = budgetAudits.length
        ? (details(budgetAudits.at(-1)!).changes as { field: string; to?: number }[]).find(
            (c) => c.field === 'defaults.tokens_per_run',
          )?.to
        : undefined;
      expect(budgets === undefined ? undefined : JSON.parse(budgets).defaults.tokens_per_run).toBe(lastBudgetRun);

      // active model: the target of the last audited activation
      const active = db.prepare("SELECT value FROM app_state WHERE key = 'active_model'").pluck().get() as
        string | undefined;
      expect(active).toBe(success('model.activate').at(-1)?.target_id);

      // each kind got at least its acknowledged number of audited successes, and at most what was sent
      for (const action of new Set(plan.map((m) => m.action))) {
        const sent =
          plan.filter((m) => m.action === action).length + (action === 'gateway.key.create' ? QUOTA_KEYS : 0);
        const audited = success(action).length;
        expect(audited).toBeGreaterThanOrEqual(acks.filter((x) => x.m.action === action).length);
        expect(audited).toBeLessThanOrEqual(sent);
      }
    } finally {
      db.close();
    }
  }, 90_000);
});
