import type { AuditEntry, AuditQuery, AuditSummaryQuery, Page, Summary } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { SEARCHED, searchIndexOf } from '../db/searched.js';
import type { CsvColumn } from './csv.js';
import { matchWhere, normalizeFilters, type TableSpec } from './filters.js';
import { columnIndex, type Row } from './keyset.js';
import { listPage } from './list.js';
import { summarize } from './summary.js';

const COLUMNS = [
  'seq',
  'id',
  'at',
  'at_ms',
  'actor_subject',
  'actor_role',
  'action',
  'target_type',
  'target_id',
  'outcome',
  'status',
  'request_id',
  'source_ip',
  'details',
  'target_name',
  'prev_hash',
  'hash',
] as const;
const C = columnIndex(COLUMNS);

export const auditSpec: TableSpec = {
  kind: 'audit',
  table: 'audit',
  timeColumn: 'at_ms',
  select: COLUMNS.join(', '),
  equals: [
    // one request writes one entry (a handful at most): its index finds them among millions
    { name: 'request_id', column: 'request_id', few: true },
    { name: 'action', column: 'action' },
    { name: 'actor', column: 'actor_subject' },
    { name: 'outcome', column: 'outcome' },
    { name: 'target_type', column: 'target_type' },
  ],
  prefixable: 'action',
  // outcome too: an auditor's `/denied` means the denied attempts, not entries whose text says so
  search: SEARCHED.audit.columns,
  searchIndex: searchIndexOf('audit'),
  counts: {
    table: 'audit_counts',
    columns: { outcome: 'outcome', action: 'action', actor_subject: 'actor_subject', target_type: 'target_type' },
  },
};

function parseDetails(text: unknown): Record<string, unknown> {
  try {
    const v = JSON.parse(String(text));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : { value: v };
  } catch {
    return {};
  }
}

export const toAuditEntry = (r: Row): AuditEntry => ({
  id: r[C.id] as string,
  at: r[C.at] as string,
  actor: { subject: r[C.actor_subject] as string, role: (r[C.actor_role] ?? null) as AuditEntry['actor']['role'] },
  action: r[C.action] as string,
  target: {
    type: r[C.target_type] as string,
    id: (r[C.target_id] ?? null) as string | null,
    name: (r[C.target_name] ?? null) as string | null,
  },
  outcome: r[C.outcome] as AuditEntry['outcome'],
  status: r[C.status] as number,
  request_id: r[C.request_id] as string,
  source_ip: (r[C.source_ip] ?? null) as string | null,
  details: parseDetails(r[C.details]),
  seq: r[C.seq] as number,
  prev_hash: r[C.prev_hash] as string,
  hash: r[C.hash] as string,
});

/**
 * The details cell: the stored text when it is a JSON object (every writer stores JSON.stringify of
 * an object; the select passes only valid JSON, as null otherwise), else what the list would show.
 */
function detailsCell(stored: unknown): string {
  if (typeof stored === 'string' && stored.charCodeAt(0) === 0x7b) return stored;
  return stored === null ? '{}' : JSON.stringify(parseDetails(stored));
}

const plain = (header: string, sql: string) => ({ header, sql });

export const auditCsvColumns: CsvColumn[] = [
  plain('id', 'id'),
  plain('at', 'at'),
  plain('actor.subject', 'actor_subject'),
  plain('actor.role', 'actor_role'),
  plain('action', 'action'),
  plain('target.type', 'target_type'),
  plain('target.id', 'target_id'),
  plain('outcome', 'outcome'),
  { header: 'status', sql: 'status', type: 'integer' },
  plain('request_id', 'request_id'),
  plain('source_ip', 'source_ip'),
  {
    header: 'details',
    sql: 'CASE WHEN json_valid(details) THEN details END',
    value: detailsCell,
    // the stored object, quoted as it holds a `"`; `{}` (no quote, so no quotes) goes through detailsCell
    quoted: { sql: 'details', when: `substr(details, 1, 1) = '{' AND instr(details, '"') AND json_valid(details)` },
  },
  // added last, so that a reader of the earlier columns by position keeps working
  plain('target.name', 'target_name'),
  // the hash chain (docs/audit-chain.md), last for the same reason
  { header: 'seq', sql: 'seq', type: 'integer' },
  plain('prev_hash', 'prev_hash'),
  plain('hash', 'hash'),
];

/** One page of the audit trail, newest first; with `seq`, the entry of that seq if it matches the other filters. */
export const listAudit = (db: Db, q: AuditQuery): Page<AuditEntry> =>
  q.seq === undefined ? listPage(db, auditSpec, q, toAuditEntry) : entryOfSeq(db, q, q.seq);

/** The entry an inclusion proof is for (`audit prove`, `audit sample`): one row by its primary key. */
function entryOfSeq(db: Db, q: AuditQuery, seq: number): Page<AuditEntry> {
  const { where, params } = matchWhere(auditSpec, normalizeFilters(auditSpec, q));
  const row = db
    .prepare(`SELECT ${auditSpec.select} FROM audit${where ? `${where} AND` : ' WHERE'} seq = @seq`)
    .raw()
    .get({ ...params, seq }) as Row | undefined;
  return { data: row ? [toAuditEntry(row)] : [], has_more: false, next_cursor: null };
}

/** Counts of the audit trail's matching entries, by outcome, action, actor or target type. */
export const summarizeAudit = (db: Db, q: AuditSummaryQuery): Summary =>
  summarize(
    db,
    auditSpec,
    { outcome: 'outcome', action: 'action', actor: 'actor_subject', target_type: 'target_type' },
    q,
  );

/** One entry as the list serves it, by its id (the seal's answer names its own entry). */
export function auditEntryById(db: Db, id: string): AuditEntry | undefined {
  const row = db.prepare(`SELECT ${auditSpec.select} FROM audit WHERE id = ?`).raw().get(id) as Row | undefined;
  return row && toAuditEntry(row);
}
