import { randomBytes } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../db/sqlite-driver.js';
import { GENESIS_HASH } from '../../audit-chain/canonical.js';
import { leafHash, nodeHash, rootHash, type Subtrees } from '../../audit-chain/merkle.js';

/**
 * The Merkle tree over the trail (docs/audit-chain.md, "The tree"), kept in the database as the
 * entries are written: `audit_tree` holds every complete subtree (level, index) once it closes, and
 * `audit_tree_runs` maps seq to leaf index as runs of consecutive seqs (one run for a trail without
 * gaps; a trail chained from before the chain may have gaps, and then one run follows each). The
 * writer appends in its own transaction (chain.ts insertLinked), so the tree is never rebuilt;
 * proofs read the subtrees they need (merkle.ts rangeHash), about two per level.
 */

const NO_TREE = new WeakSet<Db>();

/**
 * Benchmarks only (test/bench/server-audit-tree.bench.ts): this database's writers leave the tree
 * alone, so that a mutation's cost with the tree can be measured against its cost without it in
 * one run. The server never calls it.
 */
export function writeWithoutTreeForBenchmark(db: Db): void {
  NO_TREE.add(db);
}

/** Whether this database's writers keep the tree (all but a benchmark's baseline). */
export const keepsTree = (db: Db): boolean => !NO_TREE.has(db);

interface Statements {
  lastLeaf: Statement;
  lastRun: Statement;
  runOf: Statement;
  node: Statement;
  insertNode: Statement;
  insertRun: Statement;
  after: Statement;
}
const statements = new WeakMap<Db, Statements>();

function st(db: Db): Statements {
  let s = statements.get(db);
  if (!s) {
    s = {
      lastLeaf: db.prepare('SELECT idx FROM audit_tree WHERE level = 0 ORDER BY idx DESC LIMIT 1').pluck(),
      lastRun: db.prepare('SELECT first_seq, first_leaf FROM audit_tree_runs ORDER BY first_seq DESC LIMIT 1'),
      runOf: db.prepare(
        'SELECT first_seq, first_leaf FROM audit_tree_runs WHERE first_seq <= ? ORDER BY first_seq DESC LIMIT 1',
      ),
      node: db.prepare('SELECT hash FROM audit_tree WHERE level = ? AND idx = ?').pluck(),
      insertNode: db.prepare('INSERT INTO audit_tree (level, idx, hash) VALUES (?, ?, ?)'),
      insertRun: db.prepare('INSERT INTO audit_tree_runs (first_seq, first_leaf) VALUES (?, ?)'),
      after: db.prepare('SELECT seq, hash FROM audit WHERE seq > ? ORDER BY seq LIMIT ?').raw(true),
    };
    statements.set(db, s);
  }
  return s;
}

interface Run {
  first_seq: number;
  first_leaf: number;
}

/** How many leaves the tree has, and the seq of its last one (0 when empty). */
export function treeHead(db: Db): { size: number; lastSeq: number } {
  const s = st(db);
  const last = s.lastLeaf.get() as number | undefined;
  if (last === undefined) return { size: 0, lastSeq: 0 };
  const run = s.lastRun.get() as Run;
  return { size: last + 1, lastSeq: run.first_seq + (last - run.first_leaf) };
}

/**
 * The leaf index of entry `seq`, when the tree holds it: its position in seq order. The caller knows
 * that the entry exists (a seq in a gap would be given the index of the entry that follows the gap's
 * start, which is not its).
 */
export function leafIndexOf(db: Db, seq: number): number | null {
  const run = st(db).runOf.get(seq) as Run | undefined;
  if (!run) return null;
  const index = run.first_leaf + (seq - run.first_seq);
  const head = treeHead(db);
  return seq <= head.lastSeq && index < head.size ? index : null;
}

/** The stored subtrees, for merkle.ts's proofs and roots. */
export function storedSubtrees(db: Db): Subtrees {
  const node = st(db).node;
  return (level, index) => {
    const h = node.get(level, index) as Buffer | undefined;
    if (!h) throw new RangeError(`the audit tree has no subtree ${level}/${index}`);
    return h;
  };
}

/** The root of the tree of the first `size` leaves (size <= the tree's). */
export const treeRoot = (db: Db, size: number): Buffer => rootHash(storedSubtrees(db), size);

/**
 * Appends leaves to the stored tree within the caller's transaction. A subtree's left half that
 * closed in this batch is kept in memory; one that closed before is read (one row). Made per
 * transaction: another process (the host CLI) may have appended in between.
 */
export class TreeAppender {
  private readonly s: Statements;
  private size: number;
  private lastSeq: number;
  /** per level, the newest complete subtree when it is a left half still waiting for its right */
  private readonly pending = new Map<number, Buffer>();

  constructor(private readonly db: Db) {
    this.s = st(db);
    ({ size: this.size, lastSeq: this.lastSeq } = treeHead(db));
  }

  /**
   * Entry `seq` with chain hash `hash` as the next leaf. An entry at or before the tree's last is
   * left out: only a trail cut behind the appliance's back writes one, and the tree keeps what was
   * signed (the signer refuses such a trail).
   */
  append(seq: number, hash: string): void {
    if (seq <= this.lastSeq) return;
    if (this.size === 0 || seq !== this.lastSeq + 1) this.s.insertRun.run(seq, this.size);
    let level = 0;
    let index = this.size;
    let node = leafHash(hash);
    this.s.insertNode.run(level, index, node);
    while (index % 2 === 1) {
      const left = this.pending.get(level) ?? (this.s.node.get(level, index - 1) as Buffer);
      this.pending.delete(level);
      node = nodeHash(left, node);
      level += 1;
      index = (index - 1) / 2;
      this.s.insertNode.run(level, index, node);
    }
    this.pending.set(level, node);
    this.size += 1;
    this.lastSeq = seq;
  }

  /**
   * Appends every entry after the tree's last up to `seq`, read from the trail in batches: the
   * entries a writer that does not keep the tree wrote (a test's direct insert, the migration's
   * chaining of an old trail), so that the tree never silently lacks one.
   */
  catchUp(seq: number): void {
    while (this.lastSeq < seq) {
      const rows = this.s.after.all(this.lastSeq, CATCH_UP_BATCH) as [number, string | null][];
      if (!rows.length) return;
      for (const [s, h] of rows) {
        if (s > seq) return;
        this.append(s, h ?? GENESIS_HASH);
      }
    }
  }
}

const CATCH_UP_BATCH = 5000;

/**
 * The appender for a writer about to link entries after `headSeq`, with the tree first brought up
 * to it; null on a database kept without a tree (a benchmark's baseline).
 */
export function treeAppender(db: Db, headSeq: number): TreeAppender | null {
  if (!keepsTree(db)) return null;
  const t = new TreeAppender(db);
  t.catchUp(headSeq);
  return t;
}

/** Brings the tree up to the trail's head (before a checkpoint signs its root). */
export function catchUpTree(db: Db, headSeq: number): void {
  new TreeAppender(db).catchUp(headSeq);
}

/** The log's id, made once per database (16 lowercase hex digits), and its origin line. */
export const newLogId = (): string => randomBytes(8).toString('hex');
export const logOrigin = (db: Db): string =>
  `appliance-admin/${db.prepare('SELECT log_id FROM audit_log WHERE id = 1').pluck().get() as string}`;
