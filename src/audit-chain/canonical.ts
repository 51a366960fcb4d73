import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * The one canonical encoder of the audit chain (docs/audit-chain.md): the server hashes and writes
 * with it, and every verifier (CLI, dashboard, evidence pack) reads with it.
 */

/** The prev_hash of entry #1. */
export const GENESIS_HASH = '0'.repeat(64);

const TOP_KEYS = [
  'action',
  'actor',
  'at',
  'details',
  'id',
  'outcome',
  'prev_hash',
  'request_id',
  'seq',
  'source_ip',
  'status',
  'target',
] as const;

/**
 * The RFC 8785 (JCS) text of an entry without its `hash`. For an entry of the served shape whose
 * strings need no escape, JSON.stringify of a copy with its keys in sorted order is that text (native,
 * and the verifier's hot path); anything else goes to the `canonicalize` package. The two agree on
 * every JSON value (test/audit-chain/canonical.test.ts). Throws when the entry has no canonical form
 * (a lone surrogate, a number out of range).
 */
function canonicalEntryText(e: Record<string, unknown>): string {
  const fast = servedShape(e) ? sortedCopyText(e) : undefined;
  if (fast !== undefined && !fast.includes('\\u')) return fast;
  const rest = { ...e };
  delete rest.hash;
  const text = canonicalize(rest);
  if (text === undefined) throw new Error('the entry has no canonical form');
  return text;
}

/**
 * An entry's hash: lowercase hex SHA-256 of its canonical text without `hash`. Serving and hashing
 * the same object is what lets anyone recompute it.
 */
export const entryHash = (entry: Record<string, unknown>): string => hash('sha256', canonicalEntryText(entry), 'hex');

/**
 * An entry as a line of the JSON Lines export: its canonical text with `"hash"` added last. Only this
 * line verifies (docs/audit-chain.md, "Only the canonical line"): a verifier hashes the line's own
 * bytes, so a line another writer re-encoded (a duplicate key, spacing) is not the entry.
 */
export function canonicalLine(entry: Record<string, unknown>): string {
  return `${canonicalEntryText(entry).slice(0, -1)},"hash":${JSON.stringify(entry.hash)}}`;
}

function servedShape(e: Record<string, unknown>): boolean {
  const keys = Object.keys(e).length;
  if (keys !== 12 && !(keys === 13 && e.hash !== undefined)) return false;
  for (const k of TOP_KEYS) if (k !== 'details' && k !== 'actor' && k !== 'target' && !leaf(e[k])) return false;
  const actor = e.actor as Record<string, unknown>;
  const target = e.target as Record<string, unknown>;
  return (
    isPlainObject(actor) &&
    Object.keys(actor).length === 2 &&
    leaf(actor.role) &&
    leaf(actor.subject) &&
    isPlainObject(target) &&
    Object.keys(target).length === 3 &&
    leaf(target.id) &&
    leaf(target.name) &&
    leaf(target.type) &&
    e.details !== undefined
  );
}

/** A JSON primitive that JSON.stringify writes as RFC 8785 does (not an object, not a non-finite number). */
const leaf = (v: unknown): boolean =>
  typeof v === 'string' || v === null || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Stands for "not plain JSON" inside sortedDeep: the package decides (and refuses it). */
class NotPlain extends Error {}

function sortedCopyText(e: Record<string, unknown>): string | undefined {
  const a = e.actor as Record<string, unknown>;
  const t = e.target as Record<string, unknown>;
  let details: unknown;
  try {
    details = sortedDeep(e.details);
  } catch (err) {
    if (err instanceof NotPlain) return undefined;
    throw err;
  }
  return JSON.stringify({
    action: e.action,
    actor: { role: a.role, subject: a.subject },
    at: e.at,
    details,
    id: e.id,
    outcome: e.outcome,
    prev_hash: e.prev_hash,
    request_id: e.request_id,
    seq: e.seq,
    source_ip: e.source_ip,
    status: e.status,
    target: { id: t.id, name: t.name, type: t.type },
  });
}

/** `v` with every object's keys in UTF-16 order: `v` itself when they already are (the usual case). */
function sortedDeep(v: unknown): unknown {
  if (v === null || typeof v !== 'object') {
    if (!leaf(v)) throw new NotPlain();
    return v;
  }
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = sortedDeep(v[i]);
      if (x !== v[i]) (copy ??= v.slice())[i] = x;
    }
    return copy ?? v;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  // JavaScript lists integer-like keys first, in numeric order, whatever order they are set in
  for (const k of keys) if (k.charCodeAt(0) <= 57 && k.charCodeAt(0) >= 48) throw new NotPlain();
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1] < keys[i];
  const values = keys.map((k) => sortedDeep(o[k]));
  if (inOrder && values.every((x, i) => x === o[keys[i]])) return o;
  // no prototype: a key named __proto__ stays a key
  const copy = Object.create(null) as Record<string, unknown>;
  for (const i of keys.map((_, i) => i).sort((x, y) => (keys[x] < keys[y] ? -1 : 1))) copy[keys[i]] = values[i];
  return copy;
}
