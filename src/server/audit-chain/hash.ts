import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditEntry } from '../../contract/index.js';

/** The prev_hash of entry 1 (docs/audit-chain.md). */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * An entry's hash: SHA-256 of the RFC 8785 (JCS) canonical JSON of the entry as the API serves it,
 * without its `hash`. Serving and hashing the same object is what lets anyone recompute it.
 */
export function entryHash(entry: Omit<AuditEntry, 'hash'>): string {
  const text = canonicalize(entry);
  if (text === undefined) throw new TypeError('audit entry cannot be canonicalized');
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
