import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import { insertJournalBatch } from '../governance/bulk.js';
import type { JournalRecord } from '../governance/journal-writer.js';
import { HOUR, MINUTE, sampleBusyTime } from './activity.js';
import { planOverBudgetRun, planRun, type PlannedRun } from './agents.js';
import type { Rng } from './prng.js';

const JOURNAL_RUNS = 3600;

/**
 * Agent runs over the window, every step finished, written oldest first, and one run over its
 * per-run token budget a few hours before `to`. Returns the row count.
 */
export function seedJournal(db: Db, config: ServerConfig, rng: Rng, from: number, to: number): number {
  const rows: JournalRecord[] = [];
  const times = rng.fork();
  const add = (run: PlannedRun, startMs: number) => {
    const run_id = rng.id('run');
    let t = startMs;
    run.steps.forEach((s, step) => {
      t += s.gap_ms;
      rows.push({
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
      });
      t += s.duration_ms;
    });
  };
  for (let r = 0; r < JOURNAL_RUNS; r++) add(planRun(rng, config), sampleBusyTime(times, from, to - 15 * MINUTE, 0.05));
  const tokensPerRun = config.budgets.tokens_per_run;
  if (tokensPerRun != null && to - from > 6 * HOUR)
    add(planOverBudgetRun(rng, config, tokensPerRun), to - rng.int(2 * HOUR, 5 * HOUR));
  rows.sort((a, b) => a.started_ms - b.started_ms);
  return insertJournalBatch(db, rows);
}
