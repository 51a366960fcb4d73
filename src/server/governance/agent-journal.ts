import type { JournalEntry, JournalQuery, Page } from '../../contract/index.js';
import type { Db } from '../db/open.js';
import type { CsvColumn } from './csv.js';
import type { TableSpec } from './filters.js';
import type { Row } from './keyset.js';
import { listPage } from './list.js';

export const journalSpec: TableSpec = {
  kind: 'journal',
  table: 'journal',
  timeColumn: 'started_ms',
  select: 'seq, id, run_id, agent, channel, step, tool, status, started_at, started_ms, ended_at, duration_ms, input_tokens, output_tokens',
  equals: [
    { name: 'run_id', column: 'run_id' },
    { name: 'agent', column: 'agent' },
    { name: 'channel', column: 'channel' },
    { name: 'status', column: 'status' },
  ],
};

export const toJournalEntry = (r: Row): JournalEntry => ({
  id: r.id as string,
  run_id: r.run_id as string,
  agent: r.agent as string,
  channel: r.channel as string,
  step: r.step as number,
  tool: (r.tool ?? null) as string | null,
  status: r.status as JournalEntry['status'],
  started_at: r.started_at as string,
  ended_at: (r.ended_at ?? null) as string | null,
  duration_ms: (r.duration_ms ?? null) as number | null,
  input_tokens: r.input_tokens as number,
  output_tokens: r.output_tokens as number,
});

export const journalCsvColumns: CsvColumn<JournalEntry>[] = (
  ['id', 'run_id', 'agent', 'channel', 'step', 'tool', 'status', 'started_at', 'ended_at', 'duration_ms', 'input_tokens', 'output_tokens'] as const
).map((k) => ({ header: k, value: (e: JournalEntry) => e[k] }));

/** One page of the agent journal, most recently started first. */
export const listJournal = (db: Db, q: JournalQuery): Page<JournalEntry> => listPage(db, journalSpec, q, toJournalEntry);
