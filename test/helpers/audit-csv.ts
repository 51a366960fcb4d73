/**
 * The audit CSV export's columns in their published order (docs/api.md, docs/audit-chain.md), written out
 * here as a reader would, not taken from the server: a test that compares with it fails when the order moves.
 */
export const AUDIT_CSV_HEADER = [
  'id',
  'at',
  'actor.subject',
  'actor.role',
  'action',
  'target.type',
  'target.id',
  'outcome',
  'status',
  'request_id',
  'source_ip',
  'details',
  'target.name',
  'seq',
  'prev_hash',
  'hash',
];
