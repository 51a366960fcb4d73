import * as z from 'zod';
import type { AuditCheckpointList } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { decodeCursor, encodeCursor } from '../http/paging.js';
import { publicKeys } from './keys.js';
import { CHECKPOINT_COLUMNS, servedCheckpoint, type CheckpointRow } from './checkpoint-note.js';

const After = z.strictObject({ id: z.number().int() });

/** One page of checkpoints, newest first, with every public key that signed or will sign one. */
export function listCheckpoints(
  db: Db,
  q: { limit: number; after?: string; at_or_before_seq?: number },
): AuditCheckpointList {
  const after = q.after === undefined ? null : decodeCursor(q.after, After).id;
  const rows = db
    .prepare(
      `SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints
       WHERE (@after IS NULL OR id < @after) AND (@max_seq IS NULL OR seq <= @max_seq)
       ORDER BY id DESC LIMIT @limit`,
    )
    .all({ after, max_seq: q.at_or_before_seq ?? null, limit: q.limit + 1 }) as CheckpointRow[];
  const has_more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  return {
    data: page.map((c) => servedCheckpoint(db, c)),
    has_more,
    next_cursor: has_more ? encodeCursor({ id: page[page.length - 1].id }) : null,
    public_keys: publicKeys(db),
  };
}
