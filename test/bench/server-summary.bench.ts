import { rmSync } from 'node:fs';
import { openDatabase, type Db } from '../../src/server/db/open.js';
import { listAudit, summarizeAudit } from '../../src/server/governance/audit-trail.js';
import { listJournal, summarizeJournal } from '../../src/server/governance/agent-journal.js';
import { insertJournalBatch } from '../../src/server/governance/bulk.js';
import type { JournalRecord } from '../../src/server/governance/journal-writer.js';
import { planRun } from '../../src/server/demo/agents.js';
import { createRng } from '../../src/server/demo/prng.js';
import type { ServerConfig } from '../../src/server/config.js';
import { AuditQuery, AuditSummaryQuery, JournalQuery, JournalSummaryQuery } from '../../src/contract/index.js';
import { copyAuditDb, ensureAuditDb, type AuditDb } from './lib/audit-db.js';
import { loadAverage, median, nowMs, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 25, point 5: summaries and text search with 1,000,000 audit entries and 1,000,000 journal
 * steps over 30 days, through the routes' own code (the query parsed by the route's schema, then
 * summarizeAudit, listAudit …), each case's p99 beside a plain filtered page of 100 measured in
 * the same run, the cases interleaved so that all see the same noise. "Now" is the newest entry,
 * so the last 24 hours and 30 days have ragged ends, as a real range has.
 */
export const name = 'server-summary';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

interface Case {
  label: string;
  run: () => unknown;
  target?: number;
}

/** `rows` journal steps of demo runs (the last one cut short), spread evenly over [fromMs, toMs), oldest first. */
function* journalSteps(rows: number, fromMs: number, toMs: number): Generator<JournalRecord[]> {
  const rng = createRng(20261126);
  const config = {
    channels: ['chan_web', 'chan_teams', 'chan_slack', 'chan_api'].map((id) => ({ id, name: id, enabled: true })),
  } as ServerConfig;
  let written = 0;
  for (let r = 0; written < rows; r++) {
    const plan = planRun(rng, config);
    let t = Math.floor(fromMs + ((toMs - fromMs) * written) / rows);
    const run_id = `run_${r}`;
    const batch: JournalRecord[] = [];
    for (const [step, s] of plan.steps.slice(0, rows - written).entries()) {
      t += s.gap_ms;
      batch.push({
        run_id,
        agent: plan.agent.name,
        channel: plan.channel,
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
    }
    written += batch.length;
    yield batch;
  }
}

function addJournal(db: Db, rows: number, meta: AuditDb, log: (m: string) => void): void {
  const started = nowMs();
  let pending: JournalRecord[] = [];
  let done = 0;
  for (const batch of journalSteps(rows, meta.fromMs, meta.toMs)) {
    pending.push(...batch);
    if (pending.length >= 50_000) {
      done += insertJournalBatch(db, pending);
      pending = [];
    }
  }
  done += insertJournalBatch(db, pending);
  log(`  ${done.toLocaleString('en-US')} journal steps in ${((nowMs() - started) / 1000).toFixed(1)} s`);
}

function cases(meta: AuditDb): Case[] {
  const now = meta.toMs;
  const day = { start_time: iso(now - DAY), end_time: iso(now) };
  const month = { start_time: iso(now - 30 * DAY), end_time: iso(now) };
  const audit = (q: Record<string, unknown>) => () => summarizeAudit(db(), AuditSummaryQuery.parse(q));
  const journal = (q: Record<string, unknown>) => () => summarizeJournal(db(), JournalSummaryQuery.parse(q));
  const person = meta.actors.find((a) => a.subject.includes('@'))!.subject;
  return [
    {
      label: 'audit page of 100, outcome=denied (plain filtered page)',
      run: () => listAudit(db(), AuditQuery.parse({ outcome: 'denied', limit: 100 })),
    },
    { label: 'audit summary, last 24 h, group_by=outcome', run: audit({ ...day, group_by: 'outcome' }), target: 10 },
    {
      label: 'audit summary, last 24 h, group_by=actor then_by=action',
      run: audit({ ...day, group_by: 'actor', then_by: 'action' }),
      target: 10,
    },
    { label: 'audit summary, 30 days, group_by=outcome', run: audit({ ...month, group_by: 'outcome' }), target: 50 },
    {
      label: 'audit summary, 30 days, action=gateway.key.*, group_by=actor then_by=outcome',
      run: audit({ ...month, action: 'gateway.key.*', group_by: 'actor', then_by: 'outcome' }),
      target: 50,
    },
    {
      label: 'journal summary, last 24 h, group_by=agent then_by=error_code',
      run: journal({ ...day, group_by: 'agent', then_by: 'error_code' }),
      target: 10,
    },
    {
      label: 'journal summary, 30 days, status=failed, group_by=error_code',
      run: journal({ ...month, status: 'failed', group_by: 'error_code' }),
      target: 50,
    },
    {
      label: 'journal summary, 30 days, group_by=tool then_by=status',
      run: journal({ ...month, group_by: 'tool', then_by: 'status' }),
      target: 50,
    },
    {
      label: `audit q page of 100, q=${person.split('@')[0]} (common)`,
      run: () => listAudit(db(), AuditQuery.parse({ q: person.split('@')[0], limit: 100 })),
      target: 50,
    },
    {
      label: 'audit q page of 100, q=conn_07 (0.6%)',
      run: () => listAudit(db(), AuditQuery.parse({ q: 'conn_07', limit: 100 })),
      target: 50,
    },
    {
      label: 'audit q page of 100, q=conn_07, last 24 h',
      run: () => listAudit(db(), AuditQuery.parse({ q: 'conn_07', ...day, limit: 100 })),
      target: 50,
    },
    {
      label: 'journal q page of 100, q=tool_timeout (0.2%)',
      run: () => listJournal(db(), JournalQuery.parse({ q: 'tool_timeout', limit: 100 })),
      target: 50,
    },
  ];
}

let openDb: Db | undefined;
const db = (): Db => openDb!;

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const rows = ctx.quick ? 100_000 : 1_000_000;
  const meta = ensureAuditDb(ctx.outDir, rows, ctx.log);
  const dataDir = copyAuditDb(meta, ctx.outDir, name);
  try {
    openDb = openDatabase(dataDir);
    openDb.pragma('synchronous = OFF'); // only while adding the journal: the copy is thrown away
    addJournal(openDb, rows, meta, ctx.log);
    openDb.pragma('synchronous = NORMAL');
    openDb.pragma('wal_checkpoint(TRUNCATE)');
    ctx.log(`load average ${loadAverage()}`);
    const all = cases(meta);
    const iterations = ctx.quick ? 30 : 300;
    const warmup = ctx.quick ? 3 : 20;
    const samples = all.map(() => [] as number[]);
    for (let i = 0; i < warmup + iterations; i++) {
      all.forEach((c, j) => {
        const t = nowMs();
        c.run();
        if (i >= warmup) samples[j].push(nowMs() - t);
      });
    }
    const baseline = { label: all[0].label.replace(/ \(.*\)$/, '') + ': p99', value: percentile(samples[0], 99) };
    return all.map((c, j) => ({
      label: `${c.label}: p99 (${rows.toLocaleString('en-US')} + ${rows.toLocaleString('en-US')} rows)`,
      value: Math.round(percentile(samples[j], 99) * 100) / 100,
      unit: 'ms',
      ...(j > 0 ? { baseline } : {}),
      ...(c.target !== undefined ? { target: { max: c.target } } : {}),
      note: `p50 ${median(samples[j]).toFixed(2)} ms, ${iterations} calls, load ${loadAverage()}`,
    }));
  } finally {
    openDb?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
