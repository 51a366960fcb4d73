import type { KeyObject } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/sqlite-driver.js';
import type { Checkpoint } from '../../audit-chain/checkpoint.js';
import { checkpointText, formatNote, signNote } from '../../audit-chain/note.js';
import { catchUpTree, keepsTree, leafIndexOf, logOrigin, treeRoot } from './tree.js';

/**
 * What a checkpoint signed with the tree carries besides the chain head (docs/audit-chain.md, "The
 * checkpoint note"): the log's origin, the tree's size and root at the head, and the C2SP signed
 * note of them. All null for a checkpoint signed before the tree existed.
 */
export interface TreeFields {
  origin: string | null;
  tree_size: number | null;
  root_hash: string | null;
  /** as served: the appliance's signed note, then every cosignature it holds */
  note: string | null;
}
export type ServedCheckpoint = Checkpoint & TreeFields;

/** The columns a served checkpoint is read from (with its row id, for its cosignatures). */
export const CHECKPOINT_COLUMNS = 'id, seq, hash, at, signature, key_fingerprint, origin, tree_size, root_hash, note';
export type CheckpointRow = ServedCheckpoint & { id: number };

/** The checkpoint's text: origin, tree size, root, then the chain head it also signs. */
export const noteText = (origin: string, size: number, root: Buffer, c: Checkpoint): string =>
  checkpointText({ origin, size, root, extensions: [`chain-head ${c.seq} ${c.hash} ${c.at}`] });

/**
 * The tree fields of checkpoint `c` (just signed, not yet stored), with its note signed by `key`: the
 * tree is brought up to the head first, so that its size is the number of entries up to `c.seq`.
 * Call inside the checkpoint's transaction.
 */
export function signTreeNote(db: Db, c: Checkpoint, key: KeyObject): TreeFields {
  // a benchmark's baseline signs as before the tree
  if (!keepsTree(db)) return { origin: null, tree_size: null, root_hash: null, note: null };
  catchUpTree(db, c.seq);
  const index = leafIndexOf(db, c.seq);
  if (index === null) throw new Error(`the audit tree does not hold entry #${c.seq}: it cannot be signed`);
  const size = index + 1;
  const root = treeRoot(db, size);
  const origin = logOrigin(db);
  const text = noteText(origin, size, root, c);
  const note = formatNote({ text, signatures: [signNote(text, origin, key)] });
  return { origin, tree_size: size, root_hash: root.toString('hex'), note };
}

const cosignatureLines = new WeakMap<Db, Statement>();

/**
 * The checkpoint as served: its note with a line for each witness's cosignature the appliance holds
 * (oldest first), after its own signature. Without `id`, the row as it is.
 */
export function servedCheckpoint(db: Db, row: CheckpointRow): ServedCheckpoint {
  const { id, ...c } = row;
  if (c.note === null) return c;
  let st = cosignatureLines.get(db);
  if (!st)
    cosignatureLines.set(
      db,
      (st = db
        .prepare('SELECT name, signature FROM audit_cosignatures WHERE checkpoint_id = ? ORDER BY received_at, name')
        .raw(true)),
    );
  const lines = (st.all(id) as [string, string][]).map(([name, sig]) => `\u2014 ${name} ${sig}\n`);
  return { ...c, note: c.note + lines.join('') };
}

/** The five fields of the checkpoint that today's verifiers read (the export's header, the kept head file). */
export const headOnly = (c: Checkpoint): Checkpoint => ({
  seq: c.seq,
  hash: c.hash,
  at: c.at,
  signature: c.signature,
  key_fingerprint: c.key_fingerprint,
});
