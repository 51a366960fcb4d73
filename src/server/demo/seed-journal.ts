import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { insertJournalBatch } from '../governance/bulk.js';
import type { JournalRecord } from '../governance/journal-writer.js';
import { DAY, HISTORY_DAYS, HOUR, MINUTE, sampleBusyTime } from './activity.js';
import { planFailingRun, planOverBudgetRun, planRun, type PlannedRun } from './agents.js';
import type { Rng } from './prng.js';

const JOURNAL_RUNS = 3600;

/** One run's journal rows, its steps one after the other from startMs. */
function runRows(rng: Rng, run: PlannedRun, startMs: number): JournalRecord[] {
  const run_id = rng.id('run');
  let t = startMs;
  return run.steps.map((s, step) => {
    t += s.gap_ms;
    const row: JournalRecord = {
      id: rng.id('jrn'),
      run_id,
      agent: run.agent.name,
      channel: run.channel,
      step,
      tool: s.tool,
      status: s.status,
      started_ms: t,
      ended_ms: t + s.duration_ms,
      input_tokens: s.input_tokens,
      output_tokens: s.output_tokens,
      error: s.error,
    };
    t += s.duration_ms;
    return row;
  });
}

/**
 * Agent runs over the window (JOURNAL_RUNS over the whole history, as many for its share of a
 * shorter one), every step finished, written oldest first, and one run over its per-run token
 * budget a few hours before `to`. Returns the row count.
 */
export function seedJournal(db: Db, config: ServerConfig, rng: Rng, from: number, to: number): number {
  const rows: JournalRecord[] = [];
  const times = rng.fork();
  const add = (run: PlannedRun, startMs: number) => rows.push(...runRows(rng, run, startMs));
  const runs = Math.round((JOURNAL_RUNS * (to - from)) / (HISTORY_DAYS * DAY));
  const last = to - 15 * MINUTE;
  if (last > from) for (let r = 0; r < runs; r++) add(planRun(rng, config), sampleBusyTime(times, from, last, 0.05));
  const tokensPerRun = config.budgets.tokens_per_run;
  if (tokensPerRun != null && to - from > 6 * HOUR)
    add(planOverBudgetRun(rng, config, tokensPerRun), to - rng.int(2 * HOUR, 5 * HOUR));
  rows.sort((a, b) => a.started_ms - b.started_ms);
  return insertJournalBatch(db, rows);
}

/** The agents whose runs fail in the last hour. */
const RECENT_FAILURES = [
  { agent: 'finance-analyst', at: 0.25 },
  { agent: 'it-helpdesk', at: 0.6 },
];

/**
 * Failed agent steps in the last hour whatever the time of day (runs follow office hours, so a
 * night or a weekend may have none): two runs failing at a tool, inside [from, now) and at most 45
 * minutes before now, so that a fresh demo's overview shows them at once. Returns the row count.
 */
export function seedRecentFailures(db: Db, config: ServerConfig, rng: Rng, from: number, now: number): number {
  const start = Math.max(from, now - 45 * MINUTE);
  if (now - start < MINUTE) return 0;
  const rows = RECENT_FAILURES.flatMap((f) =>
    runRows(rng, planFailingRun(rng, config, f.agent), start + Math.floor((now - start - 30_000) * f.at)),
  );
  return insertJournalBatch(db, rows);
}
