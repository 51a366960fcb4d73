import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { recordAudit } from '../audit.js';
import { backgroundTasks } from '../background.js';
import { ApiError } from '../errors.js';
import { newId } from '../ids.js';
import { createGatewayKey, revokeGatewayKey } from '../gateway/keys.js';
import { recordJournal } from '../governance/journal-writer.js';
import type { Quota } from '../../contract/index.js';
import { planRun, type PlannedRun } from './agents.js';
import { createRng, type Rng } from './prng.js';
import { journalFinisher } from './journal-steps.js';

export const TRAFFIC_ACTOR = 'demo-traffic-generator';
/** The background task (background.ts) the generator's ticks run as. */
const TRAFFIC_TASK = 'demo-traffic';
const ACTOR = { subject: TRAFFIC_ACTOR, role: 'it_admin' as const };

/**
 * The generator's own keys, each meeting a different limit: the first runs out of its daily
 * tokens after a few hours, the second's calls now and then pass its tokens per minute, and the
 * last has a tight per-minute quota so bursts meet 429.
 */
const TRAFFIC_KEYS: { name: string; quota: Partial<Quota> }[] = [
  { name: 'demo-traffic-1', quota: { requests_per_minute: 120, tokens_per_day: 2_000_000 } },
  { name: 'demo-traffic-2', quota: { requests_per_minute: 60, tokens_per_minute: 10_000 } },
  { name: 'demo-traffic-3', quota: { requests_per_minute: 20 } },
];
const MAX_LIVE_RUNS = 4;
/** A workload no demo appliance serves, which an out-of-date client still calls now and then (404). */
const RETIRED_WORKLOAD = 'translate';
const RETIRED_WORKLOAD_SHARE = 0.02;
/** Ticks a client keeps trying a revoked key (401) before its owner notices and stops it. */
const TRIES_AFTER_REVOKE = 3;
/** A step that was live when the demo stopped ends cancelled, saying so. */
const SERVER_STOPPED = { code: 'cancelled', message: 'the appliance stopped before the step finished' };

export interface TrafficOptions {
  /** pause between ticks: a fixed number, or [min, max] drawn each time (default 1–4 s) */
  intervalMs?: number | [number, number];
  /** pause before the first tick (default: one interval) */
  firstDelayMs?: number;
  log?: Logger;
}

interface TrafficStats {
  ticks: number;
  calls: number;
  /** gateway answers by status */
  statuses: Record<number, number>;
  runsStarted: number;
  stepsWritten: number;
}

export interface TrafficHandle {
  readonly stats: TrafficStats;
  /** ids of the keys this run created (their secrets never leave this module) */
  readonly keyIds: string[];
  /** stops at once, waits for the tick in flight, and ends simulated runs still in progress */
  stop(): Promise<void>;
}

interface LiveKey {
  id: string;
  name: string;
  secret: string;
  refusals: number;
}
interface LiveRun {
  plan: PlannedRun;
  runId: string;
  index: number;
  stepId: string;
  stepStarted: number;
}

/**
 * Live demo traffic: every 1–4 s it calls the real gateway front door in-process (app.inject) with
 * keys it creates for itself, and writes journal steps for simulated agent runs that progress from
 * running to succeeded, failed or cancelled. Its ticks run as the TRAFFIC_TASK background task: a
 * tick that fails (a full disk, a locked database) is logged and shown on /deployment, leaves the
 * simulated runs as they were, and is tried again, later while it keeps failing. Timers are unref'd.
 */
export function startTraffic(
  app: FastifyInstance,
  db: Db,
  config: ServerConfig,
  opts: TrafficOptions = {},
): TrafficHandle {
  const rng: Rng = createRng(Date.now() & 0x7fffffff);
  const nextDelay = () =>
    typeof opts.intervalMs === 'number' ? opts.intervalMs : rng.int(...(opts.intervalMs ?? [1000, 4000]));
  const stats: TrafficStats = { ticks: 0, calls: 0, statuses: {}, runsStarted: 0, stepsWritten: 0 };
  const keys: LiveKey[] = [];
  const keyIds: string[] = [];
  const runs: LiveRun[] = [];
  const finishStep = journalFinisher(db);
  let stopped = false;
  let keysRotated = false;
  let orphansEnded = false;

  const tick = async () => {
    if (!keysRotated) {
      await app.ready();
      if (stopped) return;
      rotateKeys();
      keysRotated = true;
    }
    if (!orphansEnded) {
      endOrphanedSteps(Date.now());
      orphansEnded = true;
    }
    stats.ticks++;
    advance(Date.now());
    await callGateway();
  };

  /** advanceRuns in one transaction; one that fails leaves the runs as they were, for the next tick. */
  const advance = (now: number) => {
    const before = runs.map((r) => ({ ...r }));
    const { runsStarted, stepsWritten } = stats;
    try {
      db.transaction(() => advanceRuns(now))();
    } catch (err) {
      runs.splice(0, runs.length, ...before);
      Object.assign(stats, { runsStarted, stepsWritten });
      throw err;
    }
  };

  /**
   * Steps an earlier demo server left running (killed before it could finish them) end as
   * cancelled: this generator is the journal's only writer in a demo, and it has no run live yet.
   */
  const endOrphanedSteps = (now: number) => {
    const orphans = db.prepare("SELECT id, started_at, input_tokens FROM journal WHERE status = 'running'").all() as {
      id: string;
      started_at: string;
      input_tokens: number;
    }[];
    db.transaction(() => {
      for (const o of orphans)
        finishStep(o.id, 'cancelled', Date.parse(o.started_at), now, o.input_tokens, 0, SERVER_STOPPED);
    })();
  };

  /**
   * Revokes this generator's keys from an earlier run and creates fresh ones, audited like any
   * change, in one transaction: one that fails leaves nothing half done, for the next tick. A name
   * an active key of someone else's holds is skipped.
   */
  const rotateKeys = () => {
    const created = db.transaction(() => {
      const old = db
        .prepare("SELECT id FROM gateway_keys WHERE created_by = ? AND status = 'active'")
        .pluck()
        .all(TRAFFIC_ACTOR) as string[];
      for (const id of old) {
        const { key } = revokeGatewayKey(db, id);
        audit('gateway.key.revoke', key.id, key.name, 200, { name: key.name, already_revoked: false });
      }
      const made: ReturnType<typeof createGatewayKey>[] = [];
      for (const spec of TRAFFIC_KEYS) {
        let one: ReturnType<typeof createGatewayKey>;
        try {
          one = createGatewayKey(db, { name: spec.name, quota: spec.quota, created_by: TRAFFIC_ACTOR });
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 409)) throw err;
          opts.log?.warn({ name: spec.name }, 'demo traffic could not create its key: an active key has its name');
          continue;
        }
        audit('gateway.key.create', one.key.id, one.key.name, 201, { name: one.key.name, quota: one.key.quota });
        made.push(one);
      }
      return made;
    })();
    for (const { key, secret } of created) {
      keys.push({ id: key.id, name: key.name, secret, refusals: 0 });
      keyIds.push(key.id);
    }
  };

  const audit = (action: string, keyId: string, keyName: string, status: number, details: Record<string, unknown>) =>
    recordAudit(db, {
      actor: ACTOR,
      action,
      target: { type: 'gateway_key', id: keyId, name: keyName },
      outcome: 'success',
      status,
      request_id: newId('req'),
      source_ip: '127.0.0.1',
      details,
    });

  const callGateway = async () => {
    const workloads = config.workloads.map((w) => w.id);
    if (!workloads.length) return;
    for (const key of [...keys]) {
      const tight = key.name === TRAFFIC_KEYS[TRAFFIC_KEYS.length - 1].name;
      const calls = tight ? (rng.chance(0.06) ? rng.int(8, 14) : rng.int(0, 1)) : rng.int(0, 2);
      for (let i = 0; i < calls && !stopped; i++) {
        const res = await app.inject({
          method: 'POST',
          url: `/v1/gateway/${encodeURIComponent(rng.chance(RETIRED_WORKLOAD_SHARE) ? RETIRED_WORKLOAD : rng.pick(workloads))}`,
          headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
          payload: JSON.stringify({
            prompt: 'demo traffic '.repeat(rng.int(5, 120)),
            max_tokens: rng.pick([64, 128, 256, 512]),
          }),
        });
        stats.calls++;
        stats.statuses[res.statusCode] = (stats.statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode === 401) {
          // revoked by someone (the dashboard, say): like a client not told yet, it tries a few
          // more ticks, then stops using the key
          if (++key.refusals >= TRIES_AFTER_REVOKE) keys.splice(keys.indexOf(key), 1);
          break;
        }
        if (res.statusCode === 429) break;
      }
    }
  };

  const beginStep = (run: LiveRun, now: number) => {
    const step = run.plan.steps[run.index];
    run.stepStarted = now;
    run.stepId = recordJournal(db, {
      run_id: run.runId,
      agent: run.plan.agent.name,
      channel: run.plan.channel,
      step: run.index,
      tool: step.tool,
      status: 'running',
      started_ms: now,
      ended_ms: null,
      input_tokens: step.input_tokens,
      output_tokens: 0,
    });
    stats.stepsWritten++;
  };

  /** Steps end when their planned duration is up (between ticks), the next one starting right after. */
  const advanceRuns = (now: number) => {
    for (const run of [...runs]) {
      for (;;) {
        const step = run.plan.steps[run.index];
        const end = run.stepStarted + step.duration_ms;
        if (end > now) break;
        finishStep(run.stepId, step.status, run.stepStarted, end, step.input_tokens, step.output_tokens, step.error);
        if (run.index + 1 >= run.plan.steps.length) {
          runs.splice(runs.indexOf(run), 1);
          break;
        }
        run.index++;
        beginStep(run, Math.min(now, end + run.plan.steps[run.index].gap_ms));
      }
    }
    // with no run live a new one always starts, so the journal moves on every tick
    if (runs.length === 0 || (runs.length < MAX_LIVE_RUNS && rng.chance(0.6))) {
      const run: LiveRun = { plan: planRun(rng, config), runId: newId('run'), index: 0, stepId: '', stepStarted: now };
      runs.push(run);
      stats.runsStarted++;
      beginStep(run, now);
    }
  };

  const loop = backgroundTasks(db).repeat(
    TRAFFIC_TASK,
    { everyMs: nextDelay, firstMs: opts.firstDelayMs ?? nextDelay() },
    tick,
  );

  return {
    stats,
    keyIds,
    async stop() {
      if (stopped) return;
      stopped = true;
      await loop.stop();
      const now = Date.now();
      try {
        for (const run of runs.splice(0))
          finishStep(
            run.stepId,
            'cancelled',
            run.stepStarted,
            now,
            run.plan.steps[run.index].input_tokens,
            0,
            SERVER_STOPPED,
          );
      } catch (err) {
        opts.log?.warn({ err }, 'demo traffic could not end its runs');
      }
      for (const k of keys.splice(0)) k.secret = '';
    },
  };
}
