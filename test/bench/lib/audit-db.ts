import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DB_FILE, openDatabase } from '../../../src/server/db/open.js';
import { migrations } from '../../../src/server/db/migrations.js';
import { insertAuditBatch, type AuditSeed } from '../../../src/server/governance/bulk.js';
import { sampleBusyTime, DAY } from '../../../src/server/demo/activity.js';
import { createRng, type Rng } from '../../../src/server/demo/prng.js';
import type { Role } from '../../../src/contract/index.js';
import { nowMs } from './stats.js';

/**
 * A large audit trail for the server benchmarks: `rows` entries over 30 days, generated once and
 * cached under test/bench/out/ keyed by GENERATOR_VERSION and the schema, so later runs skip it.
 * Deterministic (seeded PRNG, fixed end time): the same key always holds the same rows.
 *
 * The mix models a busy appliance: half the entries are the ingest scheduler's runs at a steady
 * rate around the clock, a quarter are other services (SIEM exports, IdP probe, Terraform, key
 * rotation, budget sync), a quarter are 60 people (Zipf-weighted, office hours, weekdays). About
 * 97.4% succeed, 2.3% fail (400/404/409/422/405), 0.3% are auditors' denied mutation attempts.
 */
export const GENERATOR_VERSION = 1;
/** the newest entry is just before this moment (fixed, so regenerating gives the same rows) */
export const END_MS = Date.UTC(2026, 10, 21, 9, 30);
export const HISTORY_DAYS = 30;

export interface AuditDb {
  /** the data directory holding appliance-admin.db (use a copy when writing: copyAuditDb) */
  dir: string;
  rows: number;
  fromMs: number;
  toMs: number;
  /** subjects by how many entries they have, most first */
  actors: { subject: string; count: number }[];
}

interface Actor {
  subject: string;
  role: Role;
  ip: string;
}

const FIRST = [
  'alice',
  'ben',
  'carla',
  'dmitri',
  'erin',
  'farah',
  'george',
  'hana',
  'ivan',
  'julia',
  'kofi',
  'lena',
  'marco',
  'nina',
  'omar',
  'paula',
  'quentin',
  'rosa',
  'sven',
  'tara',
];
const LAST = ['martin', 'okafor', 'mendes'];

/** 60 people: 12 IT admins, 38 app owners, 10 auditors. */
const PEOPLE: Actor[] = Array.from({ length: 60 }, (_, i) => ({
  subject: `${FIRST[i % 20]}.${LAST[Math.floor(i / 20)]}@northwind.example`,
  role: (i < 12 ? 'it_admin' : i < 50 ? 'app_owner' : 'auditor') as Role,
  ip: `10.20.${4 + (i % 12)}.${10 + i}`,
}));
/** Zipf-like: a few people do most of the work */
const PEOPLE_WEIGHTS = PEOPLE.map((p, i) => [p, 1 / (i + 1) ** 0.8] as const);

const svc = (subject: string, role: Role, ip: string): Actor => ({ subject, role, ip });
const SCHEDULER = svc('svc-ingest-scheduler', 'it_admin', '127.0.0.1');
const SIEM = svc('svc-siem-export', 'auditor', '10.20.30.5');
const PROBE = svc('svc-idp-probe', 'it_admin', '127.0.0.1');
const TERRAFORM = svc('svc-terraform', 'it_admin', '10.20.30.21');
const ROTATOR = svc('svc-key-rotator', 'it_admin', '10.20.30.22');
const BUDGETS = svc('svc-budget-sync', 'app_owner', '10.20.30.23');

/** the services' share of all entries, by service; people have the rest (0.24) */
const SERVICE_SHARES: [Actor, number][] = [
  [SCHEDULER, 0.5],
  [SIEM, 0.06],
  [PROBE, 0.04],
  [TERRAFORM, 0.08],
  [ROTATOR, 0.06],
  [BUDGETS, 0.02],
];
const SERVICE_SHARE = SERVICE_SHARES.reduce((s, [, w]) => s + w, 0);

const CONNECTORS = Array.from({ length: 40 }, (_, i) => `conn_${String(i).padStart(2, '0')}`);
const CHANNELS = ['chan_web', 'chan_teams', 'chan_slack', 'chan_api', 'chan_email', 'chan_sms'];
const WORKLOADS = ['chat', 'summarize', 'extract', 'embed', 'code-assist', 'classify'];
const MODELS = [
  'llama-3.1-8b-instruct',
  'mistral-7b-instruct-v0.3',
  'qwen2.5-14b-instruct',
  'qwen2.5-coder-7b-instruct',
];
const IDPS = ['login.northwind.example', 'northwind.okta.example', 'adfs.northwind.example'];

type Make = (
  rng: Rng,
  keys: string[],
) => { action: string; target: { type: string; id: string | null }; details: Record<string, unknown> };

const ACTIONS: Record<string, Make> = {
  'connector.ingest': (rng) => {
    const c = rng.pick(CONNECTORS);
    return {
      action: 'connector.ingest',
      target: { type: 'connector', id: c },
      details: { source_id: `src_${c.slice(5)}_${rng.int(1, 3)}`, job_id: rng.id('job') },
    };
  },
  'channel.update': (rng) => {
    const id = rng.pick(CHANNELS);
    const to = rng.chance(0.5);
    return {
      action: 'channel.update',
      target: { type: 'channel', id },
      details: { requested: 1, changes: [{ id, from: !to, to }] },
    };
  },
  'gateway.key.create': (rng, keys) => {
    const id = rng.id('key');
    keys.push(id);
    if (keys.length > 2000) keys.splice(0, 1000);
    return {
      action: 'gateway.key.create',
      target: { type: 'gateway_key', id },
      details: {
        name: `app-${rng.int(1, 400)}`,
        quota: {
          requests_per_minute: rng.pick([60, 120, null]),
          tokens_per_minute: null,
          tokens_per_day: rng.pick([1_000_000, null]),
        },
      },
    };
  },
  'gateway.key.revoke': (rng, keys) => ({
    action: 'gateway.key.revoke',
    target: { type: 'gateway_key', id: keys.length ? rng.pick(keys) : rng.id('key') },
    details: { name: `app-${rng.int(1, 400)}`, already_revoked: rng.chance(0.05) },
  }),
  'gateway.key.quota': (rng, keys) => ({
    action: 'gateway.key.quota',
    target: { type: 'gateway_key', id: keys.length ? rng.pick(keys) : rng.id('key') },
    details: {
      from: { requests_per_minute: 60, tokens_per_minute: null, tokens_per_day: null },
      to: { requests_per_minute: rng.pick([30, 90, 120, 300]), tokens_per_minute: null, tokens_per_day: null },
    },
  }),
  'model.activate': (rng) => {
    const [a, b] = [rng.pick(MODELS), rng.pick(MODELS)];
    return { action: 'model.activate', target: { type: 'model', id: b }, details: { previous_model_id: a } };
  },
  'routing.update': (rng) => ({
    action: 'routing.update',
    target: { type: 'routing', id: rng.pick(WORKLOADS) },
    details: { from: rng.pick(MODELS), to: rng.pick([...MODELS, null]) },
  }),
  'agent.budgets.update': (rng) => ({
    action: 'agent.budgets.update',
    target: { type: 'budgets', id: null },
    details: { changes: [{ field: 'defaults.tokens_per_run', from: 32_000, to: rng.pick([16_000, 48_000, 64_000]) }] },
  }),
  'identity.test': (rng) => {
    const ok = rng.chance(0.9);
    return {
      action: 'identity.test',
      target: { type: 'identity_provider', id: rng.pick(IDPS) },
      details: { provider: 'oidc', ok, failed_step: ok ? null : rng.pick(['resolve', 'discovery', 'jwks']) },
    };
  },
  'audit.export': (rng) => ({
    action: 'audit.export',
    target: { type: 'audit', id: null },
    details: { format: rng.pick(['csv', 'jsonl']), filters: { start_time: '2026-11-20T09:00:00Z' } },
  }),
  'journal.export': (rng) => ({
    action: 'journal.export',
    target: { type: 'journal', id: null },
    details: { format: 'jsonl', filters: { agent: rng.pick(['hr-assistant', 'it-helpdesk']) } },
  }),
  'settings.update': (rng) => ({
    action: 'settings.update',
    target: { type: 'settings', id: null },
    details: { method: rng.pick(['PUT', 'PATCH', 'POST']) },
  }),
};

const SERVICE_ACTIONS = new Map<Actor, [string, number][]>([
  [SCHEDULER, [['connector.ingest', 1]]],
  [
    SIEM,
    [
      ['audit.export', 9],
      ['journal.export', 1],
    ],
  ],
  [PROBE, [['identity.test', 1]]],
  [
    TERRAFORM,
    [
      ['gateway.key.create', 3],
      ['gateway.key.quota', 4],
      ['gateway.key.revoke', 1],
      ['routing.update', 1],
      ['channel.update', 1],
    ],
  ],
  [
    ROTATOR,
    [
      ['gateway.key.create', 1],
      ['gateway.key.revoke', 1],
    ],
  ],
  [BUDGETS, [['agent.budgets.update', 1]]],
]);
const ROLE_ACTIONS: Record<Role, [string, number][]> = {
  it_admin: [
    ['connector.ingest', 20],
    ['channel.update', 10],
    ['gateway.key.create', 12],
    ['gateway.key.revoke', 6],
    ['gateway.key.quota', 14],
    ['model.activate', 4],
    ['routing.update', 10],
    ['agent.budgets.update', 6],
    ['identity.test', 8],
    ['audit.export', 8],
    ['journal.export', 2],
  ],
  app_owner: [
    ['connector.ingest', 25],
    ['gateway.key.create', 15],
    ['gateway.key.quota', 15],
    ['gateway.key.revoke', 5],
    ['channel.update', 10],
    ['routing.update', 10],
    ['agent.budgets.update', 10],
    ['audit.export', 5],
    ['journal.export', 5],
  ],
  // a fifth of what auditors do is a mutation attempt, denied
  auditor: [
    ['audit.export', 50],
    ['journal.export', 30],
    ['gateway.key.revoke', 5],
    ['channel.update', 5],
    ['routing.update', 5],
    ['connector.ingest', 5],
  ],
};
const FAILURES: [number, string][] = [
  [400, 'SVC-ADMIN-400'],
  [404, 'SVC-ADMIN-404'],
  [409, 'SVC-ADMIN-409'],
  [422, 'SVC-ADMIN-422'],
];
const READS = new Set(['audit.export', 'journal.export', 'identity.test']);

function entry(rng: Rng, keys: string[], actor: Actor, at_ms: number, human: boolean): AuditSeed {
  const actions = SERVICE_ACTIONS.get(actor) ?? ROLE_ACTIONS[actor.role as Role];
  const name = rng.weighted(actions);
  let { action, target, details } = ACTIONS[name](rng, keys);
  let outcome: AuditSeed['outcome'] = 'success';
  let status = name === 'gateway.key.create' ? 201 : name === 'connector.ingest' ? 202 : 200;
  if (actor.role === 'auditor' && !READS.has(name)) {
    outcome = 'denied';
    status = 403;
    details = { reason: `role ${actor.role} may not mutate` };
  } else if (rng.chance(human ? 0.05 : 0.015)) {
    outcome = 'failed';
    if (human && rng.chance(0.1)) {
      ({ action, target } = ACTIONS['settings.update'](rng, keys));
      status = 405;
      details = { method: 'PUT' };
    } else {
      const [code, problem] = rng.pick(FAILURES);
      status = code;
      details = { code: problem, detail: `${action} refused (${code})` };
    }
  }
  return {
    id: rng.id('aud'),
    at_ms,
    actor: { subject: actor.subject, role: actor.role },
    action,
    target,
    outcome,
    status,
    request_id: rng.id('req'),
    source_ip: actor.ip,
    details,
  };
}

/** All entries oldest first: the services' steady stream merged with people's office hours. */
function* generate(n: number, fromMs: number, toMs: number): Generator<AuditSeed> {
  const rng = createRng(20261121);
  const times = rng.fork();
  const nService = Math.round(n * SERVICE_SHARE);
  const serviceTimes = Float64Array.from({ length: nService }, () =>
    Math.floor(fromMs + times.next() * (toMs - fromMs)),
  ).sort();
  const humanTimes = Float64Array.from({ length: n - nService }, () => sampleBusyTime(times, fromMs, toMs)).sort();
  const services = SERVICE_SHARES.map(([a, w]) => [a, w] as const);
  const keys: string[] = [];
  for (let i = 0, j = 0; i < serviceTimes.length || j < humanTimes.length;) {
    if (j >= humanTimes.length || (i < serviceTimes.length && serviceTimes[i] <= humanTimes[j])) {
      yield entry(rng, keys, rng.weighted(services), serviceTimes[i++], false);
    } else {
      yield entry(rng, keys, rng.weighted(PEOPLE_WEIGHTS), humanTimes[j++], true);
    }
  }
}

function* take<T>(it: Iterator<T>, n: number): Generator<T> {
  for (let i = 0; i < n; i++) {
    const r = it.next();
    if (r.done) return;
    yield r.value;
  }
}

const schemaHash = () => createHash('sha1').update(JSON.stringify(migrations)).digest('hex').slice(0, 8);

/** The cached database with `rows` entries, generating it first when missing. */
export function ensureAuditDb(outDir: string, rows: number, log: (m: string) => void): AuditDb {
  const dir = join(outDir, `audit-${rows}-g${GENERATOR_VERSION}-${schemaHash()}`);
  const metaFile = join(dir, 'meta.json');
  if (existsSync(metaFile)) return { dir, ...JSON.parse(readFileSync(metaFile, 'utf8')) };

  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  log(`generating ${rows.toLocaleString('en-US')} audit entries into ${tmp} (once; cached afterwards)`);
  const started = nowMs();
  const db = openDatabase(tmp);
  // only for generating: a large page cache and no fsync (the file is thrown away if this fails)
  db.pragma('cache_size = -262144');
  db.pragma('synchronous = OFF');
  const fromMs = END_MS - HISTORY_DAYS * DAY;
  const it = generate(rows, fromMs, END_MS);
  for (let done = 0; done < rows;) {
    done += insertAuditBatch(db, take(it, 100_000));
    if (done % 200_000 === 0 || done === rows)
      log(`  ${done.toLocaleString('en-US')} rows, ${((nowMs() - started) / 1000).toFixed(1)} s`);
  }
  const actors = db
    .prepare('SELECT actor_subject AS subject, count(*) AS count FROM audit GROUP BY actor_subject ORDER BY count DESC')
    .all() as AuditDb['actors'];
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const meta = {
    rows,
    fromMs,
    toMs: END_MS,
    actors,
    generator: GENERATOR_VERSION,
    seconds: Math.round((nowMs() - started) / 100) / 10,
  };
  writeFileSync(join(tmp, 'meta.json'), `${JSON.stringify(meta, null, 2)}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  log(`generated in ${meta.seconds} s`);
  return { dir, ...meta };
}

/** A private copy of the cached database in a fresh data directory, for a run that writes (exports audit themselves). */
export function copyAuditDb(src: AuditDb, outDir: string, label: string): string {
  const dir = join(outDir, `work-${label}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(src.dir, DB_FILE), join(dir, DB_FILE));
  return dir;
}
