import type { AuditEntry, AuditQuery, Page } from '../../contract/index.js';
import type { Db } from '../db/open.js';
import type { CsvColumn } from './csv.js';
import type { TableSpec } from './filters.js';
import type { Row } from './keyset.js';
import { listPage } from './list.js';

export const auditSpec: TableSpec = {
  kind: 'audit',
  table: 'audit',
  timeColumn: 'at_ms',
  select: 'seq, id, at, at_ms, actor_subject, actor_role, action, target_type, target_id, outcome, status, request_id, source_ip, details',
  equals: [
    { name: 'action', column: 'action' },
    { name: 'actor', column: 'actor_subject' },
    { name: 'outcome', column: 'outcome' },
  ],
  prefixable: 'action',
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
  id: r.id as string,
  at: r.at as string,
  actor: { subject: r.actor_subject as string, role: (r.actor_role ?? null) as AuditEntry['actor']['role'] },
  action: r.action as string,
  target: { type: r.target_type as string, id: (r.target_id ?? null) as string | null },
  outcome: r.outcome as AuditEntry['outcome'],
  status: r.status as number,
  request_id: r.request_id as string,
  source_ip: (r.source_ip ?? null) as string | null,
  details: parseDetails(r.details),
});

export const auditCsvColumns: CsvColumn<AuditEntry>[] = [
  { header: 'id', value: (e) => e.id },
  { header: 'at', value: (e) => e.at },
  { header: 'actor.subject', value: (e) => e.actor.subject },
  { header: 'actor.role', value: (e) => e.actor.role },
  { header: 'action', value: (e) => e.action },
  { header: 'target.type', value: (e) => e.target.type },
  { header: 'target.id', value: (e) => e.target.id },
  { header: 'outcome', value: (e) => e.outcome },
  { header: 'status', value: (e) => e.status },
  { header: 'request_id', value: (e) => e.request_id },
  { header: 'source_ip', value: (e) => e.source_ip },
  { header: 'details', value: (e) => JSON.stringify(e.details) },
];

/** One page of the audit trail, newest first. */
export const listAudit = (db: Db, q: AuditQuery): Page<AuditEntry> => listPage(db, auditSpec, q, toAuditEntry);
