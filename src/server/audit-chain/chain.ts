import type { Statement } from 'better-sqlite3';
import type { AuditEntry } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { entryHash, GENESIS_HASH } from '../../audit-chain/canonical.js';
import { treeAppender } from './tree.js';

/** An audit row as written, before it is linked into the chain; `details` is its JSON text. */
export interface AuditRow {
  id: string;
  at: string;
  at_ms: number;
  actor_subject: string;
  actor_role: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
  outcome: string;
  status: number;
  request_id: string;
  source_ip: string | null;
  details: string;
}

export interface ChainHead {
  seq: number;
  hash: string;
}
type LinkedRow = AuditRow & { seq: number; prev_hash: string; hash: string };

const heads = new WeakMap<Db, Statement>();
const inserts = new WeakMap<Db, Statement>();

/**
 * The trail's last entry, read inside the writer's transaction rather than cached: a mutation's
 * transaction may still roll back after its entry was linked, and the host CLI's token commands
 * write from another process. A lookup at the end of the rowid tree costs about a microsecond.
 */
export function readHead(db: Db): ChainHead {
  let st = heads.get(db);
  if (!st) heads.set(db, (st = db.prepare('SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1')));
  const row = st.get() as { seq: number; hash: string | null } | undefined;
  return row ? { seq: row.seq, hash: row.hash ?? GENESIS_HASH } : { seq: 0, hash: GENESIS_HASH };
}

/** The entry exactly as the API serves it (governance/audit-trail.ts toAuditEntry), without its hash. */
function servedEntry(r: AuditRow & { seq: number; prev_hash: string }): Omit<AuditEntry, 'hash'> {
  return {
    id: r.id,
    at: r.at,
    actor: { subject: r.actor_subject, role: (r.actor_role ?? null) as AuditEntry['actor']['role'] },
    action: r.action,
    target: { type: r.target_type, id: r.target_id ?? null, name: r.target_name ?? null },
    outcome: r.outcome as AuditEntry['outcome'],
    status: r.status,
    request_id: r.request_id,
    source_ip: r.source_ip ?? null,
    details: JSON.parse(r.details) as Record<string, unknown>,
    seq: r.seq,
    prev_hash: r.prev_hash,
  };
}

const LONE_SURROGATE = /\p{Surrogate}/u;
const wellFormed = (s: string) => (LONE_SURROGATE.test(s) ? s.replace(/\p{Surrogate}/gu, '\ufffd') : s);
const wellFormedJson = (v: unknown): unknown =>
  typeof v === 'string'
    ? wellFormed(v)
    : Array.isArray(v)
      ? v.map(wellFormedJson)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k), wellFormedJson(x)]))
        : v;

const TEXT_FIELDS = [
  'id',
  'at',
  'actor_subject',
  'actor_role',
  'action',
  'target_type',
  'target_id',
  'target_name',
  'outcome',
  'request_id',
  'source_ip',
] as const;

/**
 * Replaces every lone UTF-16 surrogate in the row by U+FFFD, so that what is stored, served and
 * hashed is Unicode text: RFC 8785 refuses a lone surrogate, and a third-party canonicalizer would
 * throw on the entry. Request bodies holding one are refused already; a claim of an identity
 * provider's token or a host user name is not checked anywhere else.
 */
function makeWellFormed(row: AuditRow): void {
  for (const k of TEXT_FIELDS) {
    const v = row[k];
    if (typeof v === 'string') (row as unknown as Record<string, unknown>)[k] = wellFormed(v);
  }
  // JSON.stringify writes a lone surrogate as a \udxxx escape: only then is details rebuilt
  if (/\\ud[89a-f]/i.test(row.details)) row.details = JSON.stringify(wellFormedJson(JSON.parse(row.details)));
}

/**
 * `row`, which the caller made for this insert, linked as the entry after `head`: its seq, the
 * head's hash and its own, set in place (a bulk seed links tens of thousands of rows).
 */
function link(row: AuditRow, head: ChainHead): LinkedRow {
  makeWellFormed(row);
  const linked = row as LinkedRow;
  linked.seq = head.seq + 1;
  linked.prev_hash = head.hash;
  linked.hash = entryHash(servedEntry(linked));
  return linked;
}

/**
 * Inserts linked rows, in order, and appends each to the trail's Merkle tree (tree.ts) in the same
 * transaction; returns the new head. `tree: false` only for the chain's own migration, which runs
 * before the tree's tables exist (the tree's migration then takes those entries in).
 */
export function insertLinked(
  db: Db,
  rows: Iterable<AuditRow>,
  head: ChainHead = readHead(db),
  o: { tree: boolean } = { tree: true },
): ChainHead {
  let st = inserts.get(db);
  if (!st) {
    st = db.prepare(`INSERT INTO audit (seq, id, at, at_ms, actor_subject, actor_role, action, target_type, target_id,
        target_name, outcome, status, request_id, source_ip, details, prev_hash, hash)
      VALUES (@seq, @id, @at, @at_ms, @actor_subject, @actor_role, @action, @target_type, @target_id,
        @target_name, @outcome, @status, @request_id, @source_ip, @details, @prev_hash, @hash)`);
    inserts.set(db, st);
  }
  const tree = o.tree ? treeAppender(db, head.seq) : null;
  for (const row of rows) {
    const linked = link(row, head);
    st.run(linked);
    tree?.append(linked.seq, linked.hash);
    head = { seq: linked.seq, hash: linked.hash };
  }
  return head;
}
