import { existsSync } from 'node:fs';
import { NO_PRICING_FOR_BUDGET } from '../gateway/pricing.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { iso } from '../ids.js';
import type { AuditSeed } from '../governance/bulk.js';
import { notPresentMessage } from '../models/catalog.js';
import type { Quota, Role } from '../../contract/index.js';
import { HOUR, MINUTE, sampleBusyTime } from './activity.js';
import { IDP_PROBE, SIEM, TERRAFORM, actorFor, admins, auditors, type Actor } from './actors.js';
import type { Rng } from './prng.js';
import type { SeededKey } from './seed-keys.js';
import { failedIngests } from './seed-ingest.js';

/** How many of each kind of people-driven event the 30 days hold. */
const HUMAN_EVENTS = {
  auditExports: 300,
  journalExports: 150,
  channelUpdates: 120,
  quotaChanges: 150,
  routingUpdates: 120,
  activations: 40,
  budgetUpdates: 60,
  identityTests: 150,
  settingsWrites: 30,
  denied: 250,
  failedIngests: 120,
  failedOther: 180,
};
/** The SIEM pulls the audit trail every 90 seconds and the journal every 10 minutes. */
const SIEM_AUDIT_EVERY = 90_000;
const SIEM_JOURNAL_EVERY = 10 * MINUTE;
const PROBE_EVERY = HOUR;
const IDP_HOST = 'login.northwind.example';

interface Ctx {
  rng: Rng;
  /** for moments only, so the number of draws they take never shifts the other choices */
  times: Rng;
  config: ServerConfig;
  keys: SeededKey[];
  from: number;
  to: number;
  out: AuditSeed[];
}

/** What the target was called, as the server's handlers name it: a key's, model's, channel's name. */
function targetName(c: Ctx, target: { type: string; id: string | null }): string | null {
  const id = target.id;
  if (id === null) return null;
  switch (target.type) {
    case 'gateway_key':
      return c.keys.find((k) => k.id === id)?.name ?? null;
    case 'model':
      return c.config.models.find((m) => m.id === id)?.name ?? null;
    case 'channel':
      return c.config.channels.find((ch) => ch.id === id)?.name ?? null;
    case 'connector':
      return c.config.connectors.find((x) => x.id === id)?.name ?? null;
    case 'routing':
      return id;
    default:
      return null;
  }
}

function push(
  c: Ctx,
  at: number,
  actor: Actor,
  action: string,
  target: { type: string; id: string | null },
  outcome: AuditSeed['outcome'],
  status: number,
  details: Record<string, unknown>,
): void {
  c.out.push({
    id: c.rng.id('aud'),
    at_ms: Math.floor(at),
    actor: { subject: actor.subject, role: actor.role as Role },
    action,
    target: { ...target, name: targetName(c, target) },
    outcome,
    status,
    request_id: c.rng.id('req'),
    source_ip: actor.ip,
    details,
  });
}

const anyKey = (c: Ctx) => (c.keys.length ? c.rng.pick(c.keys).id : null);

/** Sorted busy-hour moments in [from, to). */
const moments = (c: Ctx, n: number, from = c.from, to = c.to) =>
  Array.from({ length: n }, () => sampleBusyTime(c.times, from, to)).sort((a, b) => a - b);

/**
 * Values for a run of changes to one thing, ending at `final` (what the appliance shows now), each
 * different from the one before. Returns [previous value, new value] per change, oldest first.
 */
function chain<T>(rng: Rng, n: number, final: T, candidates: T[], same: (a: T, b: T) => boolean = Object.is): [T, T][] {
  const values: T[] = new Array(n);
  values[n - 1] = final;
  const other = (v: T) => {
    const pool = candidates.filter((x) => !same(x, v));
    return pool.length ? rng.pick(pool) : v;
  };
  for (let i = n - 2; i >= 0; i--) values[i] = other(values[i + 1]);
  const first = other(values[0]);
  return values.map((v, i) => [i === 0 ? first : values[i - 1], v]);
}

/** Spreads n events over entities at random, returning [entity, sorted moments] pairs. */
function perEntity<E>(
  c: Ctx,
  entities: E[],
  n: number,
  window: (e: E) => [number, number] = () => [c.from, c.to],
): [E, number[]][] {
  if (!entities.length) return [];
  const counts = new Map<E, number>();
  for (let i = 0; i < n; i++) {
    const e = c.rng.pick(entities);
    counts.set(e, (counts.get(e) ?? 0) + 1);
  }
  return [...counts].map(([e, k]) => {
    const [a, b] = window(e);
    return [e, b > a ? moments(c, k, a, b) : []];
  });
}

function automation(c: Ctx): void {
  for (let t = c.from + c.rng.int(0, 89) * 1000; t < c.to; t += SIEM_AUDIT_EVERY) {
    push(c, t + c.rng.int(0, 4000), SIEM, 'audit.export', { type: 'audit', id: null }, 'success', 200, {
      format: 'jsonl',
      filters: { start_time: iso(t - SIEM_AUDIT_EVERY) },
    });
  }
  for (let t = c.from + c.rng.int(0, 9) * MINUTE; t < c.to; t += SIEM_JOURNAL_EVERY) {
    push(c, t + c.rng.int(0, 4000), SIEM, 'journal.export', { type: 'journal', id: null }, 'success', 200, {
      format: 'jsonl',
      filters: { start_time: iso(t - SIEM_JOURNAL_EVERY) },
    });
  }
  // the identity provider's maintenance window four days ago: discovery failed for three hours
  const maintenance = [c.to - 4 * 24 * HOUR + 1 * HOUR, c.to - 4 * 24 * HOUR + 4 * HOUR];
  for (let t = c.from + 7 * MINUTE; t < c.to; t += PROBE_EVERY) {
    const ok = !(t >= maintenance[0] && t < maintenance[1]);
    push(
      c,
      t + c.rng.int(0, 2000),
      IDP_PROBE,
      'identity.test',
      { type: 'identity_provider', id: IDP_HOST },
      'success',
      200,
      { provider: 'oidc', host: IDP_HOST, ok, failed_step: ok ? null : 'discovery' },
    );
  }
}

function exports(c: Ctx): void {
  const filters = () =>
    c.rng.weighted<Record<string, string>>([
      [{}, 3],
      [{ action: 'gateway.key.*' }, 2],
      [{ outcome: 'denied' }, 2],
      [{ actor: c.rng.pick(admins()).subject }, 1],
    ]);
  const people = () => (c.rng.chance(0.7) ? c.rng.pick(auditors()) : c.rng.pick(admins()));
  for (const at of moments(c, HUMAN_EVENTS.auditExports)) {
    const range = { start_time: iso(at - c.rng.pick([1, 7, 30]) * 24 * HOUR), end_time: iso(at) };
    push(c, at, people(), 'audit.export', { type: 'audit', id: null }, 'success', 200, {
      format: c.rng.pick(['csv', 'jsonl']),
      filters: { ...range, ...filters() },
    });
  }
  for (const at of moments(c, HUMAN_EVENTS.journalExports)) {
    const f: Record<string, string> = { start_time: iso(at - c.rng.pick([1, 7]) * 24 * HOUR) };
    if (c.rng.chance(0.5)) f.agent = c.rng.pick(['hr-assistant', 'finance-analyst', 'it-helpdesk', 'sales-copilot']);
    push(c, at, people(), 'journal.export', { type: 'journal', id: null }, 'success', 200, {
      format: c.rng.pick(['csv', 'jsonl']),
      filters: f,
    });
  }
}

function channelUpdates(c: Ctx, db: Db): void {
  const setUpdated = db.prepare('UPDATE channels SET updated_at = ? WHERE id = ?');
  for (const [ch, times] of perEntity(c, c.config.channels, HUMAN_EVENTS.channelUpdates)) {
    chain(c.rng, times.length, ch.enabled, [true, false]).forEach(([from, to], i) => {
      push(c, times[i], c.rng.pick(admins()), 'channel.update', { type: 'channel', id: ch.id }, 'success', 200, {
        requested: 1,
        changes: [{ id: ch.id, from, to }],
      });
    });
    if (times.length) setUpdated.run(iso(times[times.length - 1]), ch.id);
  }
}

function keyEvents(c: Ctx): void {
  for (const k of c.keys) {
    const keyTarget = { type: 'gateway_key', id: k.id };
    if (k.created_ms >= c.from)
      push(c, k.created_ms, actorFor(k.created_by), 'gateway.key.create', keyTarget, 'success', 201, {
        name: k.name,
        quota: k.quota,
      });
    if (k.expiry && k.expiry.at_ms >= c.from)
      push(c, k.expiry.at_ms, admins()[0], 'gateway.key.expiry', keyTarget, 'success', 200, {
        from: null,
        to: k.expiry.expires_at,
      });
    if (k.budget && k.budget.at_ms >= c.from)
      push(
        c,
        k.budget.at_ms,
        admins()[0],
        'gateway.key.budget',
        keyTarget,
        k.budget.to ? 'success' : 'failed',
        k.budget.to ? 200 : 409,
        k.budget.to
          ? {
              name: k.name,
              currency: c.config.pricing?.currency ?? null,
              from: { per_day: null, per_month: null, warn_percent: k.budget.to.warn_percent },
              to: k.budget.to,
            }
          : { code: 'SVC-ADMIN-409', detail: NO_PRICING_FOR_BUDGET },
      );
    if (k.rotation && k.rotation.at_ms >= c.from) {
      const { at_ms, ...rotation } = k.rotation;
      push(c, at_ms, admins()[0], 'gateway.key.rotate', keyTarget, 'success', 200, {
        name: k.name,
        previous_prefix: rotation.previous_prefix,
        new_prefix: rotation.new_prefix,
        grace_seconds: rotation.grace_seconds,
        previous_valid_until: rotation.valid_until,
      });
    }
    if (k.revoked_ms !== null && k.revoked_ms >= c.from) {
      push(c, k.revoked_ms, c.rng.pick(admins()), 'gateway.key.revoke', keyTarget, 'success', 200, {
        name: k.name,
        already_revoked: false,
      });
    }
  }
  const rpm = [10, 20, 30, 45, 60, 90, 120, 300, null];
  const tpm = [10_000, 20_000, 40_000, 60_000, 100_000, null];
  const tpd = [100_000, 500_000, 1_000_000, 2_000_000, 5_000_000, null];
  const variant = (): Quota => ({
    requests_per_minute: c.rng.pick(rpm),
    tokens_per_minute: c.rng.pick(tpm),
    tokens_per_day: c.rng.pick(tpd),
  });
  const sameQuota = (a: Quota, b: Quota) => JSON.stringify(a) === JSON.stringify(b);
  const life = (k: SeededKey): [number, number] => [Math.max(c.from, k.created_ms + MINUTE), k.revoked_ms ?? c.to];
  for (const [k, times] of perEntity(c, c.keys, HUMAN_EVENTS.quotaChanges, life)) {
    const candidates = [k.quota, ...Array.from({ length: 6 }, variant)];
    chain(c.rng, times.length, k.quota, candidates, sameQuota).forEach(([from, to], i) => {
      const who = k.created_by.startsWith('svc-') ? TERRAFORM : c.rng.pick(admins());
      push(c, times[i], who, 'gateway.key.quota', { type: 'gateway_key', id: k.id }, 'success', 200, { from, to });
    });
  }
}

function modelEvents(c: Ctx, db: Db): void {
  const present = c.config.models.filter((m) => existsSync(m.path)).map((m) => m.id);
  const isEmbedding = (id: string) => /embed/i.test(id);
  const chatModels = present.filter((id) => !isEmbedding(id));
  const defaultModel = c.config.default_model ?? chatModels[0];
  if (defaultModel && chatModels.length > 1) {
    const activations = moments(c, HUMAN_EVENTS.activations);
    chain(c.rng, activations.length, defaultModel, chatModels).forEach(([from, to], i) => {
      push(c, activations[i], c.rng.pick(admins()), 'model.activate', { type: 'model', id: to }, 'success', 200, {
        previous_model_id: from,
      });
    });
  }

  const candidatesFor = (w: string): (string | null)[] => [
    ...(isEmbedding(w) ? present.filter(isEmbedding) : chatModels),
    null,
  ];
  const setUpdated = db.prepare('UPDATE routing SET updated_at = ?, updated_by = ? WHERE workload = ?');
  for (const [w, times] of perEntity(c, c.config.workloads, HUMAN_EVENTS.routingUpdates)) {
    let last: [number, Actor] | undefined;
    chain(c.rng, times.length, w.model_id, candidatesFor(w.id)).forEach(([from, to], i) => {
      const who = c.rng.pick(admins());
      push(c, times[i], who, 'routing.update', { type: 'routing', id: w.id }, 'success', 200, { from, to });
      last = [times[i], who];
    });
    if (last) setUpdated.run(iso(last[0]), last[1].subject, w.id);
  }
}

function budgetEvents(c: Ctx, db: Db): void {
  type Field = 'tokens_per_run' | 'tool_calls_per_run' | 'seconds_per_run' | 'tokens_per_day';
  const options: Record<Field, (number | null)[]> = {
    tokens_per_run: [16_000, 24_000, 32_000, 48_000, 64_000],
    tool_calls_per_run: [10, 15, 20, 25, 40],
    seconds_per_run: [120, 180, 300, 600],
    tokens_per_day: [1_000_000, 2_000_000, 3_000_000, null],
  };
  const times = moments(c, HUMAN_EVENTS.budgetUpdates);
  const fields = Object.keys(options) as Field[];
  const byField = new Map<Field, number[]>();
  times.forEach((_, i) => {
    const f = c.rng.pick(fields);
    byField.set(f, [...(byField.get(f) ?? []), i]);
  });
  const changes: { field: string; from: number | null; to: number | null }[][] = times.map(() => []);
  for (const [f, idx] of byField) {
    const final = c.config.budgets[f] ?? null;
    chain(c.rng, idx.length, final, [final, ...options[f]]).forEach(([from, to], j) =>
      changes[idx[j]].push({ field: `defaults.${f}`, from, to }),
    );
  }
  let last: [number, Actor] | undefined;
  times.forEach((at, i) => {
    const who = c.rng.pick(admins());
    push(c, at, who, 'agent.budgets.update', { type: 'budgets', id: null }, 'success', 200, { changes: changes[i] });
    last = [at, who];
  });
  if (last) {
    const b = c.config.budgets;
    const defaults = {
      tokens_per_run: b.tokens_per_run ?? null,
      tool_calls_per_run: b.tool_calls_per_run ?? null,
      seconds_per_run: b.seconds_per_run ?? null,
      tokens_per_day: b.tokens_per_day ?? null,
    };
    db.prepare('INSERT OR IGNORE INTO app_state (key, value, updated_at, updated_by) VALUES (?, ?, ?, ?)').run(
      'budgets',
      JSON.stringify({ defaults, agents: {} }),
      iso(last[0]),
      last[1].subject,
    );
  }
}

function identityTests(c: Ctx): void {
  const targets = [
    { provider: 'oidc', host: IDP_HOST },
    { provider: 'oidc', host: 'northwind.okta.example' },
    { provider: 'saml', host: 'adfs.northwind.example' },
  ];
  for (const at of moments(c, HUMAN_EVENTS.identityTests)) {
    const t = c.rng.pick(targets);
    const ok = c.rng.chance(0.8);
    const failed_step = ok
      ? null
      : t.provider === 'oidc'
        ? c.rng.pick(['resolve', 'discovery', 'issuer-match', 'jwks'])
        : c.rng.pick(['fetch', 'signing-certificate', 'validity']);
    push(c, at, c.rng.pick(admins()), 'identity.test', { type: 'identity_provider', id: t.host }, 'success', 200, {
      ...t,
      ok,
      failed_step,
    });
  }
  for (const at of moments(c, HUMAN_EVENTS.settingsWrites)) {
    push(c, at, c.rng.pick(admins()), 'settings.update', { type: 'settings', id: null }, 'failed', 405, {
      method: c.rng.pick(['PUT', 'PATCH', 'POST']),
    });
  }
}

function denied(c: Ctx): void {
  const attempts: [string, () => { type: string; id: string | null }][] = [
    ['gateway.key.revoke', () => ({ type: 'gateway_key', id: anyKey(c) })],
    ['gateway.key.quota', () => ({ type: 'gateway_key', id: anyKey(c) })],
    ['gateway.key.create', () => ({ type: 'gateway_key', id: null })],
    ['channel.update', () => ({ type: 'channel', id: c.rng.pick(c.config.channels)?.id ?? null })],
    ['model.activate', () => ({ type: 'model', id: c.rng.pick(c.config.models)?.id ?? null })],
    ['routing.update', () => ({ type: 'routing', id: c.rng.pick(c.config.workloads)?.id ?? null })],
    ['agent.budgets.update', () => ({ type: 'budgets', id: null })],
    ['connector.ingest', () => ({ type: 'connector', id: c.rng.pick(c.config.connectors)?.id ?? null })],
    ['identity.test', () => ({ type: 'identity_provider', id: IDP_HOST })],
  ];
  for (const at of moments(c, HUMAN_EVENTS.denied)) {
    const who = c.rng.pick(auditors());
    const [action, target] = c.rng.pick(attempts);
    push(c, at, who, action, target(), 'denied', 403, { reason: `role ${who.role} may not mutate` });
  }
}

function failures(c: Ctx): void {
  c.out.push(...failedIngests(c.rng, HUMAN_EVENTS.failedIngests, c.from, c.to, c.config));
  const missing = c.config.models.find((m) => !existsSync(m.path))?.id ?? 'llama-3.3-70b-instruct';
  const fail = (code: string, detail: string) => ({ code, detail: detail.slice(0, 300) });
  const cases: ((at: number) => [string, { type: string; id: string | null }, number, Record<string, unknown>])[] = [
    () => {
      const id = c.rng.id('key');
      return ['gateway.key.revoke', { type: 'gateway_key', id }, 404, fail('SVC-ADMIN-404', `no gateway key ${id}`)];
    },
    (at) => {
      const revoked = c.keys.filter((x) => x.revoked_ms !== null && x.revoked_ms < at);
      if (!revoked.length) return cases[0](at);
      const id = c.rng.pick(revoked).id;
      return [
        'gateway.key.quota',
        { type: 'gateway_key', id },
        409,
        fail('SVC-ADMIN-409', `gateway key ${id} is revoked; its quota can no longer change`),
      ];
    },
    () => ['model.activate', { type: 'model', id: missing }, 422, fail('SVC-ADMIN-422', notPresentMessage(missing))],
    () => {
      const w = c.rng.pick(c.config.workloads)?.id ?? 'chat';
      return ['routing.update', { type: 'routing', id: w }, 422, fail('SVC-ADMIN-422', notPresentMessage(missing))];
    },
    () => [
      'channel.update',
      { type: 'channel', id: 'chan_whatsapp' },
      404,
      fail('SVC-ADMIN-404', 'no channel chan_whatsapp; nothing was changed'),
    ],
    () => [
      'agent.budgets.update',
      { type: 'budgets', id: null },
      422,
      fail('SVC-BOUNDARY-1', 'the appliance accepts metadata only; this body carries content'),
    ],
    () => ['gateway.key.quota', { type: 'gateway_key', id: anyKey(c) }, 400, fail('SVC-ADMIN-400', 'invalid body')],
  ];
  for (const at of moments(c, HUMAN_EVENTS.failedOther)) {
    const [action, target, status, details] = c.rng.pick(cases)(at);
    push(c, at, c.rng.pick(admins()), action, target, 'failed', status, details);
  }
}

/**
 * Everything in the audit trail besides ingestion: the SIEM's and the IdP probe's regular calls,
 * people's changes (each thing's history ends in the state the appliance shows now), denied
 * attempts by auditors, and failures. Also stamps channels, routing and budgets with their last
 * change. Returns the entries, unsorted.
 */
export function adminEvents(
  db: Db,
  rng: Rng,
  config: ServerConfig,
  keys: SeededKey[],
  from: number,
  to: number,
): AuditSeed[] {
  const c: Ctx = { rng, times: rng.fork(), config, keys, from, to, out: [] };
  automation(c);
  exports(c);
  channelUpdates(c, db);
  keyEvents(c);
  modelEvents(c, db);
  budgetEvents(c, db);
  identityTests(c);
  denied(c);
  failures(c);
  return c.out;
}
