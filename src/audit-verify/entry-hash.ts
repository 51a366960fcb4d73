import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';

/** The prev_hash of entry #1. */
export const ZERO_HASH = '0'.repeat(64);

/**
 * An audit entry's hash (docs/audit-chain.md): lowercase hex SHA-256 of the RFC 8785 canonical
 * JSON of the entry without its `hash` field. `entry` is a parsed JSON object, as served.
 * Throws when the entry cannot be canonicalized (a lone surrogate, a number out of range).
 */
export function hashEntry(entry: Record<string, unknown>): string {
  return hash('sha256', canonicalEntry(entry), 'hex');
}

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
 * The canonical text of an entry without `hash`. The `canonicalize` package builds it at about
 * 85,000 entries a second here, too slow for the 200,000 a second the verifier must reach, so an
 * entry of the served shape is written by a fixed template (its keys are known, and sorted below)
 * and only `details` is walked. Its output is the package's for every JSON value (property test
 * in test/audit-verify/entry-hash.test.ts); anything else, and any text with an escaped character
 * (a lone surrogate, which the package refuses, shows as one), goes to the package itself.
 */
function canonicalEntry(e: Record<string, unknown>): string {
  const fast = servedShape(e) ? templated(e) : undefined;
  if (fast !== undefined && !fast.includes('\\u')) return fast;
  const rest = { ...e };
  delete rest.hash;
  const text = canonicalize(rest);
  if (text === undefined) throw new Error('the entry has no canonical form');
  return text;
}

function servedShape(e: Record<string, unknown>): boolean {
  const keys = Object.keys(e).length;
  if (keys !== 12 && !(keys === 13 && e.hash !== undefined)) return false;
  for (const k of TOP_KEYS) if (e[k] === undefined) return false;
  const actor = e.actor as Record<string, unknown>;
  const target = e.target as Record<string, unknown>;
  return (
    isPlainObject(actor) &&
    Object.keys(actor).length === 2 &&
    actor.role !== undefined &&
    actor.subject !== undefined &&
    isPlainObject(target) &&
    Object.keys(target).length === 3 &&
    target.id !== undefined &&
    target.name !== undefined &&
    target.type !== undefined
  );
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

function templated(e: Record<string, unknown>): string {
  const actor = e.actor as Record<string, unknown>;
  const target = e.target as Record<string, unknown>;
  return (
    `{"action":${value(e.action)},"actor":{"role":${value(actor.role)},"subject":${value(actor.subject)}}` +
    `,"at":${value(e.at)},"details":${value(e.details)},"id":${value(e.id)},"outcome":${value(e.outcome)}` +
    `,"prev_hash":${value(e.prev_hash)},"request_id":${value(e.request_id)},"seq":${value(e.seq)}` +
    `,"source_ip":${value(e.source_ip)},"status":${value(e.status)}` +
    `,"target":{"id":${value(target.id)},"name":${value(target.name)},"type":${value(target.type)}}}`
  );
}

/** RFC 8785 for a parsed JSON value: JSON.stringify's strings and numbers, keys sorted by UTF-16 units. */
function value(v: unknown): string {
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'number' && !Number.isFinite(v)) throw new Error('a number out of range has no canonical form');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (v[i] === undefined ? 'null' : value(v[i]));
    return `${out}]`;
  }
  const o = v as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const k of Object.keys(o).sort()) {
    if (o[k] === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${value(o[k])}`;
    first = false;
  }
  return `${out}}`;
}
