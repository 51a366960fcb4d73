import './lib/production-env.js';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Pool } from 'undici';
import Database from '../../src/server/db/sqlite-driver.js';
import { DB_FILE } from '../../src/server/db/open.js';
import { listGatewayKeys } from '../../src/server/gateway/keys.js';
import { queryUsage } from '../../src/server/gateway/usage.js';
import { encodeCursor } from '../../src/server/http/paging.js';
import { loadDemoConfig } from '../../src/server/demo/config.js';
import { KeyListQuery, UsageQuery } from '../../src/contract/index.js';
import { ApiClient } from '../../src/client/api-client.js';
import { createDashboard } from '../../src/dashboard/shell/deps.js';
import { screens } from '../../screens/index.js';
import { copyGatewayDb, ensureGatewayDb, type GatewayDb } from './lib/gateway-db.js';
import { issueToken, startServer, type CliServer } from './lib/cli-server.js';
import { renderApp } from './lib/ink-harness.js';
import { KEY_TARGET, measure, stat, type Kind } from './dashboard-keys.bench.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 41 §6: a gateway with 1,000,000 keys and 10,000,000 usage minutes (lib/gateway-db.ts),
 * beside a small one (10,000 keys, 100,000 minutes) in the same run:
 * - the keys list through the route's own code (the query parsed by its schema, then
 *   listGatewayKeys): the first page, a page at a random depth by cursor, pages filtered by a
 *   name's beginning and by status, the unused, never-used and expiring keys with their count; the
 *   cases and the two databases interleaved, 2,000 calls each;
 * - the usage reads the keys screen and the overview make (the last hour by hour; the last day and
 *   week by day), over the last hour of the generated history;
 * - the front door: the built server on a copy of each database, gateway calls sent to each in
 *   turn, one at a time, with a key that has a month of history (a busy key, rotated for its secret,
 *   its quota lifted);
 * - the dashboard's keys screen against each server: the real App in process (as dashboard-keys),
 *   moves, pages and a filter typed, on the newest 500 keys, held to the dashboard's key-latency
 *   targets (p50 and p99, dashboard-keys' KEY_TARGET) after a warm-up, as dashboard-keys counts
 *   its keys after the first 200: a freshly started dashboard is slower while V8 warms up its code.
 */
export const name = 'server-gateway-scale';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Side {
  label: string;
  meta: GatewayDb;
  db: InstanceType<typeof Database>;
  seqs: number;
}

/** A cursor at a random key of the list's order (newest first): a deep page. */
function randomCursor(side: Side): string {
  const seq = 1 + Math.floor(Math.random() * side.seqs);
  const row = side.db.prepare('SELECT created_at AS c, seq AS s FROM gateway_keys WHERE seq = ?').get(seq) as {
    c: string;
    s: number;
  };
  return encodeCursor(row);
}
/** A cursor at a random key of the unused keys' order (longest unused first): a deep page of them. */
function randomIdleCursor(side: Side): string {
  const seq = 1 + Math.floor(Math.random() * side.seqs);
  const row = side.db.prepare('SELECT idle_since_minute AS i, seq AS s FROM gateway_keys WHERE seq = ?').get(seq) as {
    i: number;
    s: number;
  };
  return encodeCursor(row);
}
/** A name beginning that about a thousand keys share (app-0123…), or ten on the small database. */
const randomPrefix = (side: Side) =>
  `app-${String(Math.floor(Math.random() * (side.meta.keys / 1000))).padStart(4, '0')}`;

type Case = { label: string; query: (side: Side) => Record<string, unknown>; target?: number };
const LIST_CASES: Case[] = [
  { label: 'first page of 50 (newest)', query: () => ({ limit: '50' }), target: 10 },
  { label: 'first page of 500 (what the keys screen asks)', query: () => ({ limit: '500' }), target: 10 },
  {
    label: 'page of 50 at a random depth, by cursor',
    query: (s) => ({ limit: '50', after: randomCursor(s) }),
    target: 10,
  },
  { label: 'page of 50 by a name beginning', query: (s) => ({ limit: '50', name: randomPrefix(s) }), target: 10 },
  { label: 'page of 50, status=revoked', query: () => ({ limit: '50', status: 'revoked' }), target: 10 },
  {
    label: 'page of 50, status=revoked at a random depth',
    query: (s) => ({ limit: '50', status: 'revoked', after: randomCursor(s) }),
    target: 10,
  },
  // which keys need an operator, over every key (the overview's watch items, the keys screen's U)
  {
    label: "the overview's unused keys (unused_days=30, count, 3 named)",
    query: () => ({ limit: '3', unused_days: '30', count: 'true' }),
    target: 10,
  },
  {
    label: "the overview's expiring keys (expires_within_days=7, count, 10 named)",
    query: () => ({ limit: '10', expires_within_days: '7', count: 'true' }),
    target: 10,
  },
  {
    label: 'page of 500 unused for 30 days, with the count (U)',
    query: () => ({ limit: '500', unused_days: '30', count: 'true' }),
    target: 10,
  },
  {
    label: 'page of 500 never used, with the count (U twice)',
    query: () => ({ limit: '500', never_used: 'true', count: 'true' }),
    target: 10,
  },
  {
    label: 'page of 50 unused for 30 days at a random depth, by cursor',
    query: (s) => ({ limit: '50', unused_days: '30', after: randomIdleCursor(s) }),
    target: 10,
  },
];

function listFigures(sides: [Side, Side], calls: number): Figure[] {
  const times = LIST_CASES.map(() => [[], []] as [number[], number[]]);
  for (let i = 0; i < calls; i++)
    for (const [c, kase] of LIST_CASES.entries())
      for (const [n, side] of sides.entries()) {
        const raw = kase.query(side);
        const t0 = nowMs();
        // idleness and expiry are judged at the end of the generated history, as they would be then
        const page = listGatewayKeys(side.db, KeyListQuery.parse(raw), side.meta.toMs);
        JSON.stringify(page);
        times[c][n].push(nowMs() - t0);
      }
  return LIST_CASES.map((kase, c) => ({
    label: `keys list, ${kase.label}, ${sides[0].meta.keys.toLocaleString('en-US')} keys: p99`,
    value: percentile(times[c][0], 99),
    unit: 'ms',
    baseline: { label: `${sides[1].label}: p99`, value: percentile(times[c][1], 99) },
    ...(kase.target ? { target: { max: kase.target } } : {}),
    note: `p50 ${median(times[c][0]).toFixed(2)} ms (${median(times[c][1]).toFixed(2)} small); ${calls} calls each, in the route's code with its JSON`,
  }));
}

/** The keys screen's and the overview's usage reads, at the end of the generated history. */
function usageFigures(sides: [Side, Side], calls: number): Figure[] {
  const end = sides[0].meta.toMs;
  const cases = [
    { label: 'last hour by hour (keys screen, overview)', q: { bucket: 'hour', start_time: end - 59 * MINUTE } },
    { label: 'last 24 hours by day (overview D)', q: { bucket: 'day', start_time: end - 24 * HOUR } },
    { label: 'last 7 days by day (overview W)', q: { bucket: 'day', start_time: end - 7 * 24 * HOUR } },
  ];
  const times = cases.map(() => [[], []] as [number[], number[]]);
  for (let i = 0; i < calls; i++)
    for (const [c, kase] of cases.entries())
      for (const [n, side] of sides.entries()) {
        const q = UsageQuery.parse({
          bucket: kase.q.bucket,
          start_time: new Date(kase.q.start_time).toISOString(),
          end_time: new Date(end).toISOString(),
        });
        const t0 = nowMs();
        JSON.stringify(queryUsage(side.db, q, end, null));
        times[c][n].push(nowMs() - t0);
      }
  return cases.map((kase, c) => ({
    label: `usage, ${kase.label}: p99`,
    value: percentile(times[c][0], 99),
    unit: 'ms',
    baseline: { label: `${sides[1].label}: p99`, value: percentile(times[c][1], 99) },
    target: { max: 50 },
    note: `p50 ${median(times[c][0]).toFixed(2)} ms (${median(times[c][1]).toFixed(2)} small); ${calls} calls each`,
  }));
}

/** A server on a copy of the database, and the secret of a busy key (rotated: the history stays). */
async function frontDoorServer(ctx: BenchContext, meta: GatewayDb, label: string) {
  const dataDir = copyGatewayDb(meta, ctx.outDir, `${label}-${process.pid}`);
  const token = issueToken(dataDir, 'it_admin', 'bench-admin');
  const config = join(ctx.outDir, `work-${label}-${process.pid}-config.json`);
  writeFileSync(config, JSON.stringify(loadDemoConfig(join(ctx.outDir, `work-${label}-${process.pid}-files`))));
  const server = await startServer(dataDir, ['--config', config]);
  const res = await fetch(`${server.url}/v1/admin/gateway/keys/${meta.busyKeys[0]}/rotate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ grace_seconds: 0 }),
  });
  if (res.status !== 200) throw new Error(`rotating a busy key: ${res.status} ${await res.text()}`);
  const { secret } = (await res.json()) as { secret: string };
  // unlimited, so that the run measures the front door's work rather than its refusals
  const unlimited = await fetch(`${server.url}/v1/admin/gateway/keys/${meta.busyKeys[0]}/quota`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ requests_per_minute: null, tokens_per_minute: null, tokens_per_day: null }),
  });
  if (unlimited.status !== 200) throw new Error(`lifting a busy key's quota: ${unlimited.status}`);
  const cleanup = async () => {
    await server.stop();
    for (const p of [dataDir, config, join(ctx.outDir, `work-${label}-${process.pid}-files`)])
      rmSync(p, { recursive: true, force: true });
  };
  return { server, token, secret, cleanup };
}

async function frontDoor(servers: { server: CliServer; secret: string }[], calls: number): Promise<number[][]> {
  const pools = servers.map((s) => new Pool(s.server.url, { connections: 1 }));
  const body = JSON.stringify({
    messages: [{ role: 'user', content: 'Summarise the travel policy.' }],
    max_tokens: 16,
  });
  const times = servers.map(() => [] as number[]);
  const statuses: Record<string, number> = {};
  try {
    for (let i = 0; i < calls; i++)
      for (const [n, s] of servers.entries()) {
        const t0 = nowMs();
        const res = await pools[n].request({
          method: 'POST',
          path: '/v1/gateway/summarize',
          headers: { authorization: `Bearer ${s.secret}`, 'content-type': 'application/json' },
          body,
        });
        await res.body.dump();
        times[n].push(nowMs() - t0);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      }
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  if (Object.keys(statuses).some((s) => s !== '200'))
    throw new Error(`gateway calls answered ${JSON.stringify(statuses)}`);
  return times;
}

const SCREEN_WORDS = ['app-09', 'revoked', 'svc-t', '∞ / 1', 'agk_00'];

/**
 * The keys screen against a server: moves, pages and a filter, as dashboard-keys measures them,
 * after `warm` of each kind (not counted).
 */
async function keysScreen(url: string, token: string, n: number, warm: number) {
  const client = new ApiClient({ url, token });
  const deps = createDashboard({
    client,
    token,
    screens,
    refreshMs: 2000,
    initialScreen: 'keys',
    clipboard: () => undefined,
  });
  const h = renderApp(deps, 120, 40);
  try {
    await h.waitForText('row 1 of 500');
    await measure(h, warm, SCREEN_WORDS);
    return await measure(h, n, SCREEN_WORDS);
  } finally {
    h.unmount();
    await deps.close();
  }
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const size = ctx.quick ? { keys: 100_000, usageMinutes: 1_000_000 } : {};
  const bigMeta = ensureGatewayDb(ctx.outDir, ctx.log, size);
  const smallMeta = ensureGatewayDb(ctx.outDir, ctx.log, { keys: 10_000, usageMinutes: 100_000 });
  const load0 = loadAverage();
  const open = (meta: GatewayDb, label: string): Side => {
    const db = new Database(join(meta.dir, DB_FILE), { readonly: true });
    return { label, meta, db, seqs: db.prepare('SELECT max(seq) FROM gateway_keys').pluck().get() as number };
  };
  const sides: [Side, Side] = [open(bigMeta, 'scale'), open(smallMeta, 'the same on 10,000 keys')];
  const figures: Figure[] = [];
  try {
    // warm: statements compiled, the indexes' pages in the cache
    listFigures(sides, 50);
    ctx.log('keys list: interleaved cases on both databases');
    figures.push(...listFigures(sides, ctx.quick ? 200 : 2000));
    ctx.log('usage reads');
    usageFigures(sides, 3);
    figures.push(...usageFigures(sides, ctx.quick ? 20 : 100));
  } finally {
    for (const s of sides) s.db.close();
  }

  ctx.log('front door: a server on a copy of each database');
  const big = await frontDoorServer(ctx, bigMeta, 'gwscale-big');
  const small = await frontDoorServer(ctx, smallMeta, 'gwscale-small');
  try {
    await frontDoor([big, small], 200);
    const calls = ctx.quick ? 500 : 3000;
    ctx.log(`front door: ${calls} calls to each, in turn`);
    const [onBig, onSmall] = await frontDoor([big, small], calls);
    figures.push({
      label: `front door p99, ${bigMeta.keys.toLocaleString('en-US')} keys and ${bigMeta.usageMinutes.toLocaleString('en-US')} usage minutes`,
      value: percentile(onBig, 99),
      unit: 'ms',
      baseline: { label: 'the same calls to a server on 10,000 keys, in turn: p99', value: percentile(onSmall, 99) },
      target: { maxRatio: 1.1 },
      note: `p50 ${median(onBig).toFixed(2)} ms (${median(onSmall).toFixed(2)} small); ${calls} calls each with a busy key's month of history, one at a time`,
    });

    const n = ctx.quick ? 60 : 400;
    // about 200 keys (a third each moves, pages, filter keys) before the counted ones, on each side
    const warm = ctx.quick ? 20 : 70;
    ctx.log(`keys screen against each server: ${warm} keys of each kind to warm up, then ${n} of each kind`);
    // the small one first, as dashboard-keys' baseline comes before its 100,000 entries
    const onSmallScreen = await keysScreen(small.server.url, small.token, n, warm);
    const onBigScreen = await keysScreen(big.server.url, big.token, n, warm);
    const screenFigures = (label: string, k: (s: typeof onBigScreen) => Kind): Figure[] => {
      const [scale, base] = [k(onBigScreen).all, k(onSmallScreen).all];
      const of = `keys screen (120x40) against the server on ${bigMeta.keys.toLocaleString('en-US')} keys, ${label}`;
      const baseLabel = 'the same keys against the server on 10,000 keys';
      return [
        {
          label: `${of}: p50`,
          value: median(scale),
          unit: 'ms',
          baseline: { label: `${baseLabel}: p50`, value: median(base) },
          target: { max: KEY_TARGET.p50 },
        },
        {
          label: `${of}: p99`,
          value: percentile(scale, 99),
          unit: 'ms',
          baseline: { label: `${baseLabel}: p99`, value: percentile(base, 99) },
          target: { max: KEY_TARGET.p99 },
          note: `${stat(scale)}; small ${stat(base)}; after ${warm} keys of each kind`,
        },
      ];
    };
    figures.push(
      ...screenFigures('j/k and arrows', (s) => s.move),
      ...screenFigures('PgDn/PgUp', (s) => s.page),
      ...screenFigures('typing a filter', (s) => s.filter),
      {
        label: 'keys after which no frame came within 1 s',
        value: onBigScreen.missed + onSmallScreen.missed,
        unit: 'keys',
        note: `load ${load0} -> ${loadAverage()}`,
      },
    );
  } finally {
    await big.cleanup();
    await small.cleanup();
  }
  return figures;
}
