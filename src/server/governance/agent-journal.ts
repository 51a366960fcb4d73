import type { JournalEntry, JournalQuery, JournalSummaryQuery, Page, Summary } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { SEARCHED, searchIndexOf } from '../db/searched.js';
import type { CsvColumn } from './csv.js';
import type { TableSpec } from './filters.js';
import { columnIndex, type Row } from './keyset.js';
import { listPage } from './list.js';
import { summarize } from './summary.js';

const COLUMNS = [
  'seq',
  'id',
  'run_id',
  'agent',
  'channel',
  'step',
  'tool',
  'status',
  'started_at',
  'started_ms',
  'ended_at',
  'duration_ms',
  'input_tokens',
  'output_tokens',
  'error_code',
  'error_message',
] as const;
const C = columnIndex(COLUMNS);

export const journalSpec: TableSpec = {
  kind: 'journal',
  table: 'journal',
  timeColumn: 'started_ms',
  select: COLUMNS.join(', '),
  equals: [
    { name: 'run_id', column: 'run_id' },
    { name: 'agent', column: 'agent' },
    { name: 'channel', column: 'channel' },
    { name: 'status', column: 'status' },
    { name: 'tool', column: 'tool' },
    { name: 'error_code', column: 'error_code' },
  ],
  // status too: `/failed` means the failed steps
  search: SEARCHED.journal.columns,
  searchIndex: searchIndexOf('journal'),
  counts: {
    table: 'journal_counts',
    columns: {
      agent: 'agent',
      channel: 'channel',
      status: 'status',
      tool: "nullif(tool, '')",
      error_code: "nullif(error_code, '')",
    },
  },
};

export const toJournalEntry = (r: Row): JournalEntry => ({
  id: r[C.id] as string,
  run_id: r[C.run_id] as string,
  agent: r[C.agent] as string,
  channel: r[C.channel] as string,
  step: r[C.step] as number,
  tool: (r[C.tool] ?? null) as string | null,
  status: r[C.status] as JournalEntry['status'],
  started_at: r[C.started_at] as string,
  ended_at: (r[C.ended_at] ?? null) as string | null,
  duration_ms: (r[C.duration_ms] ?? null) as number | null,
  input_tokens: r[C.input_tokens] as number,
  output_tokens: r[C.output_tokens] as number,
  error:
    r[C.error_code] == null ? null : { code: r[C.error_code] as string, message: (r[C.error_message] ?? '') as string },
});

const INTEGER_COLUMNS = new Set(['step', 'duration_ms', 'input_tokens', 'output_tokens']);

/** Every cell is its column as stored, as the list shows it; the error's, added last, keep earlier positions. */
export const journalCsvColumns: CsvColumn[] = [
  ...(
    [
      'id',
      'run_id',
      'agent',
      'channel',
      'step',
      'tool',
      'status',
      'started_at',
      'ended_at',
      'duration_ms',
      'input_tokens',
      'output_tokens',
    ] as const
  ).map((k) => ({ header: k, sql: k, ...(INTEGER_COLUMNS.has(k) ? { type: 'integer' as const } : {}) })),
  { header: 'error.code', sql: 'error_code' },
  { header: 'error.message', sql: 'error_message' },
];

/** One page of the agent journal, most recently started first. */
export const listJournal = (db: Db, q: JournalQuery): Page<JournalEntry> =>
  listPage(db, journalSpec, q, toJournalEntry);

/** Counts of the journal's matching steps, by agent, status, tool, error code or channel. */
export const summarizeJournal = (db: Db, q: JournalSummaryQuery): Summary =>
  summarize(
    db,
    journalSpec,
    { agent: 'agent', status: 'status', tool: 'tool', error_code: 'error_code', channel: 'channel' },
    q,
  );
