import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditEntry } from '../../contract/index.js';

/** The prev_hash of entry 1 (docs/audit-chain.md). */
export const GENESIS_HASH = '0'.repeat(64);

const str = (v: string | null): string => (v === null ? 'null' : JSON.stringify(v));

/**
 * The RFC 8785 (JCS) canonical JSON of an entry without its hash. The entry's shape is fixed, so
 * its keys are written here in JCS order (UTF-16 code unit order) and only `details` goes through
 * the generic canonicalizer: about a third of the cost of canonicalizing the whole object, which a
 * bulk seed pays per row. JCS writes strings and numbers as JSON.stringify does; the tests check
 * this against the generic canonicalizer.
 */
function canonicalEntry(e: Omit<AuditEntry, 'hash'>): string {
  const details = canonicalize(e.details);
  if (details === undefined) throw new TypeError('audit entry details cannot be canonicalized');
  return (
    `{"action":${str(e.action)},"actor":{"role":${str(e.actor.role)},"subject":${str(e.actor.subject)}}` +
    `,"at":${str(e.at)},"details":${details},"id":${str(e.id)},"outcome":${str(e.outcome)}` +
    `,"prev_hash":${str(e.prev_hash)},"request_id":${str(e.request_id)},"seq":${e.seq}` +
    `,"source_ip":${str(e.source_ip)},"status":${e.status}` +
    `,"target":{"id":${str(e.target.id)},"name":${str(e.target.name)},"type":${str(e.target.type)}}}`
  );
}

/**
 * An entry's hash: SHA-256 of the RFC 8785 (JCS) canonical JSON of the entry as the API serves it,
 * without its `hash`. Serving and hashing the same object is what lets anyone recompute it.
 */
export function entryHash(entry: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalEntry(entry), 'utf8').digest('hex');
}

/**
 * An entry as a line of the JSON Lines export: its canonical JSON (the text its hash covers) with
 * `"hash"` added last. A verifier can hash the line's bytes up to the hash as they are, without
 * parsing and re-encoding them (docs/audit-chain.md, "Reading an export fast").
 */
export function canonicalLine(entry: AuditEntry): string {
  const { hash, ...rest } = entry;
  return `${canonicalEntry(rest).slice(0, -1)},"hash":${JSON.stringify(hash)}}`;
}
