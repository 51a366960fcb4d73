import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  selectionDigest,
  signStatement,
  type ExportStatement,
  type SignedStatement,
} from '../../audit-chain/statement.js';
import type { Checkpoint } from '../../audit-chain/checkpoint.js';
import type { Db } from '../db/sqlite-driver.js';
import type { Filters, TableSpec } from '../governance/filters.js';
import { scanBatches } from '../governance/keyset.js';
import type { SigningKey } from './keys.js';

/** Rows read per turn of the event loop while a selection's digest is computed. */
const BATCH = 2000;

/**
 * The signed statement of an audit export (docs/audit-chain.md, "Export statements"): which entries
 * the file holds, up to the head its export signed. Entries up to the head never change (the trail
 * is append-only), so it is computed after the export's transaction; a selection's digest reads its
 * rows a batch a turn, so that a long one does not hold up other requests.
 */
export async function exportStatement(
  db: Db,
  spec: TableSpec,
  o: {
    filters: Filters;
    named: Record<string, string>;
    head: Checkpoint;
    /** when it is signed: the head's checkpoint's time, or now when the export reuses an older checkpoint */
    at: string;
    format: 'csv' | 'jsonl';
    requestId: string;
    key: SigningKey;
  },
): Promise<SignedStatement> {
  const H = o.head.seq;
  const f = o.filters;
  const timeOnly = Object.keys(f.equals).length === 0 && !f.prefix && f.q === undefined;
  let count = 0;
  let first: number | null = null;
  let last: number | null = null;
  let digest: string | null = null;
  if (timeOnly && f.startMs === undefined && f.endMs === undefined) {
    // the whole trail is the run from its first entry to the head, not counted: a gap in it is entries
    // missing, which the verifier names (docs/performance.md: what a count of the whole trail cost)
    first = db.prepare('SELECT min(seq) FROM audit').pluck().get() as number;
    last = H;
    count = H - first + 1;
  } else if (timeOnly) {
    // a time range is a run unless the clock stepped back inside it: counted on the narrow time index
    const row = db
      .prepare(
        `SELECT count(*) AS count, min(seq) AS first, max(seq) AS last FROM audit INDEXED BY audit_at
         WHERE at_ms >= @start AND at_ms < @end AND seq <= @H`,
      )
      .get({ H, start: f.startMs ?? Number.MIN_SAFE_INTEGER, end: f.endMs ?? Number.MAX_SAFE_INTEGER }) as {
      count: number;
      first: number | null;
      last: number | null;
    };
    ({ count, first, last } = row);
    if (first !== null && last !== null && count !== last - first + 1) {
      // not a run: the clock stepped back inside it (the entries between are there, outside the range: a
      // selection, signed by its digest), or entries between are gone (the run is signed as it should be,
      // and the verifier names what is missing)
      const present = db
        .prepare('SELECT count(*) FROM audit INDEXED BY audit_at WHERE seq BETWEEN ? AND ?')
        .pluck()
        .get(first, last) as number;
      if (present < last - first + 1) count = last - first + 1;
    }
  }
  const contiguous = count === 0 || (first !== null && last !== null && count === last - first + 1);
  if (!timeOnly || !contiguous) {
    // a selection (or a time range the clock broke): every row's hash goes into the digest
    const d = selectionDigest();
    count = 0;
    first = null;
    last = null;
    for (const batch of scanBatches(db, spec, f, { maxSeq: H, batchSize: BATCH, select: 'seq, at_ms, hash' })) {
      for (const [seq, , hash] of batch as [number, number, string][]) {
        first ??= seq;
        last = seq;
        count++;
        d.add(hash);
      }
      await nextTurn();
    }
    digest = d.hex();
  }
  const stillContiguous = count === 0 || count === last! - first! + 1;
  const at = (seq: number | null, column: 'hash' | 'prev_hash') =>
    seq === null ? null : (db.prepare(`SELECT ${column} FROM audit WHERE seq = ?`).pluck().get(seq) as string);
  const statement: ExportStatement = {
    type: 'audit-export',
    version: 1,
    at: o.at,
    request_id: o.requestId,
    format: o.format,
    filters: o.named,
    head: { seq: H, hash: o.head.hash },
    count,
    first_seq: first,
    last_seq: last,
    first_prev_hash: at(first, 'prev_hash'),
    last_hash: at(last, 'hash'),
    contiguous: stillContiguous,
    digest: stillContiguous ? null : digest,
  };
  return signStatement(statement, o.key);
}
