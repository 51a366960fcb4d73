import { createHash, sign, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import { GENESIS_HASH } from './canonical.js';
import { asCheckpoint, HEX64, SIGNATURE, signatureValid, type Checkpoint } from './checkpoint.js';

/**
 * An export's signed statement (docs/audit-chain.md, "Export statements"): what the file holds, as
 * the appliance selected it, signed with the head of the trail at that moment. A verifier believes
 * the scope of an export only from here: nothing unsigned (a header, a file's own flags, a manifest)
 * chooses its checks.
 */
export interface ExportStatement {
  type: 'audit-export';
  version: 1;
  /** when it was signed: the export's moment */
  at: string;
  /** the export's request, whose own audit.export entry is the head, or after it (an export reusing a checkpoint) */
  request_id: string;
  format: 'csv' | 'jsonl';
  /** the filters applied, by their API names (start_time, end_time, actor, action, outcome, target_type, q, request_id) */
  filters: Record<string, string>;
  /** the checkpoint the export ends at: the trail's head when it started, or the newest checkpoint when nothing but
   * exports' entries and counts of refused requests came after it (docs/audit-chain.md); the file holds nothing after it */
  head: { seq: number; hash: string };
  /** how many entries the file holds */
  count: number;
  first_seq: number | null;
  last_seq: number | null;
  /** the first entry's prev_hash: where the file's chain starts */
  first_prev_hash: string | null;
  /** the last entry's hash: where the file's chain ends */
  last_hash: string | null;
  /** every seq from first_seq to last_seq is in the file, so its links prove it whole */
  contiguous: boolean;
  /** when not contiguous: SHA-256 over the entries' 32-byte hashes in seq order, hex; else null */
  digest: string | null;
}

/** The statement with its signature, as the Audit-Export-Statement header and FILE.checkpoint.json carry it. */
export interface SignedStatement {
  statement: ExportStatement;
  signature: string;
  key_fingerprint: string;
}

/** The filters a statement may name; any other makes it unusable (a verifier would not know what it means). */
const STATEMENT_FILTERS = [
  'start_time',
  'end_time',
  'actor',
  'action',
  'outcome',
  'target_type',
  'q',
  'request_id',
] as const;
/** Filters that keep an export a run of the trail: the appliance writes seq in time order. */
export const TIME_FILTERS: ReadonlySet<string> = new Set(['start_time', 'end_time']);

const statementPayload = (s: ExportStatement): Buffer => Buffer.from(canonicalize(s)!, 'utf8');

export function signStatement(
  s: ExportStatement,
  key: { privateKey: KeyObject; fingerprint: string },
): SignedStatement {
  return {
    statement: s,
    signature: sign(null, statementPayload(s), key.privateKey).toString('base64'),
    key_fingerprint: key.fingerprint,
  };
}

export const statementSignatureValid = (s: SignedStatement, key: KeyObject): boolean =>
  signatureValid(statementPayload(s.statement), s.signature, key);

/**
 * Digest of a selection: SHA-256 over its entries' hashes (32 bytes each), in seq order. Fed one
 * hash at a time, so that neither side holds the selection.
 */
export function selectionDigest() {
  const h = createHash('sha256');
  return {
    add: (entryHash: string) => h.update(Buffer.from(entryHash, 'hex')),
    hex: () => h.digest('hex'),
  };
}

/** What an export proves, from its signed statement: the words a verifier prints and its checks. */
export type StatementScope =
  /** the whole trail, #1 to the head */
  | { kind: 'whole' }
  /** every entry of a time range, a run of seq */
  | { kind: 'run'; start: string | null; end: string | null }
  /** the entries some filter picked (or a run the clock broke): all of them, unaltered, but not what lies between */
  | { kind: 'selection' };

export function scopeOf(s: ExportStatement): StatementScope {
  const names = Object.keys(s.filters);
  if (names.length === 0 && s.contiguous && (s.count === 0 || s.first_seq === 1) && s.last_seq === s.head.seq)
    return { kind: 'whole' };
  if (s.contiguous && names.every((n) => TIME_FILTERS.has(n)))
    return { kind: 'run', start: s.filters.start_time ?? null, end: s.filters.end_time ?? null };
  return { kind: 'selection' };
}

/** A signed statement read from outside (a header, a file), or a sentence saying what is wrong with it. */
export function asSignedStatement(v: unknown): SignedStatement | string {
  if (!isObject(v)) return 'not a JSON object';
  if (typeof v.signature !== 'string' || !SIGNATURE.test(v.signature)) return 'it has no signature';
  if (typeof v.key_fingerprint !== 'string' || !HEX64.test(v.key_fingerprint)) return 'it names no key';
  const s = v.statement;
  if (!isObject(s)) return 'it holds no statement';
  if (s.type !== 'audit-export' || s.version !== 1) return 'it is not a version 1 audit export statement';
  const keys = Object.keys(s).sort().join(',');
  if (keys !== STATEMENT_KEYS) return `its fields are not those of a statement (${keys.slice(0, 200)})`;
  const int = (x: unknown, min: number) => Number.isSafeInteger(x) && (x as number) >= min;
  const seqOrNull = (x: unknown) => x === null || int(x, 1);
  const hashOrNull = (x: unknown) => x === null || (typeof x === 'string' && HEX64.test(x));
  if (typeof s.at !== 'string' || typeof s.request_id !== 'string') return 'it has no time or request id';
  if (s.format !== 'csv' && s.format !== 'jsonl') return 'its format is neither csv nor jsonl';
  if (!isObject(s.filters)) return 'its filters are not an object';
  for (const [k, x] of Object.entries(s.filters))
    if (!(STATEMENT_FILTERS as readonly string[]).includes(k) || typeof x !== 'string')
      return `it names a filter no verifier knows: ${k.slice(0, 40)}`;
  if (!isObject(s.head) || !int(s.head.seq, 1) || typeof s.head.hash !== 'string' || !HEX64.test(s.head.hash))
    return 'its head is not {seq, hash}';
  if (!int(s.count, 0) || !seqOrNull(s.first_seq) || !seqOrNull(s.last_seq)) return 'its count or seqs are not numbers';
  if (!hashOrNull(s.first_prev_hash) || !hashOrNull(s.last_hash) || !hashOrNull(s.digest))
    return 'its hashes are not 64 lowercase hex digits';
  if (typeof s.contiguous !== 'boolean') return 'it does not say whether the file is contiguous';
  const empty = s.count === 0;
  if (empty !== (s.first_seq === null) || empty !== (s.last_seq === null)) return 'its count and seqs disagree';
  return v as unknown as SignedStatement;
}

const STATEMENT_KEYS = [
  'at',
  'contiguous',
  'count',
  'digest',
  'filters',
  'first_prev_hash',
  'first_seq',
  'format',
  'head',
  'last_hash',
  'last_seq',
  'request_id',
  'type',
  'version',
]
  .sort()
  .join(',');

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * FILE.checkpoint.json, beside an export: `{"statement", "signature", "key_fingerprint", "checkpoint"}`
 * as the CLI and the dashboard write it (the signed statement, and the head's checkpoint for verifiers
 * of before statements), or a file of an older version holding only `{"checkpoint"}` or a bare
 * checkpoint. Unsigned fields (an older file's `filtered` and `filters`) are not read.
 */
export function parseStatementFile(
  text: string,
): { statement: SignedStatement | null; checkpoint: Checkpoint | null } | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!isObject(v)) return 'not a JSON object';
  if ('statement' in v) {
    const statement = asSignedStatement(v);
    if (typeof statement === 'string') return `its statement is unusable: ${statement}`;
    const cp = 'checkpoint' in v ? asCheckpoint(v.checkpoint) : null;
    return { statement, checkpoint: typeof cp === 'string' ? null : cp };
  }
  const cp = asCheckpoint('checkpoint' in v ? v.checkpoint : v);
  if (typeof cp === 'string') return `not a checkpoint: ${cp}`;
  return { statement: null, checkpoint: cp };
}

/**
 * What a checkpoint alone proves of an export, as a statement: the whole trail, #1 (with the genesis
 * prev_hash) to the signed head, contiguous. Every field follows from the signature over the head and
 * the genesis rule, so nothing unsigned is believed; a file that is not that whole trail fails it.
 */
export function wholeTrailClaim(cp: Checkpoint, format: 'csv' | 'jsonl'): ExportStatement {
  return {
    type: 'audit-export',
    version: 1,
    at: cp.at,
    request_id: '',
    format,
    filters: {},
    head: { seq: cp.seq, hash: cp.hash },
    count: cp.seq,
    first_seq: 1,
    last_seq: cp.seq,
    first_prev_hash: GENESIS_HASH,
    last_hash: cp.hash,
    contiguous: true,
    digest: null,
  };
}

/** The file written beside an export: the signed statement and the head's checkpoint. */
export const statementFileText = (s: SignedStatement, checkpoint: Checkpoint | null): string =>
  `${JSON.stringify({ ...s, ...(checkpoint ? { checkpoint } : {}) }, null, 2)}\n`;
