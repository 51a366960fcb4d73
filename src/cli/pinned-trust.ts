import { readKeysFile } from '../audit-chain/keys-file.js';
import { trustOfPem } from '../audit-chain/pinned-keys.js';
import type { Trust } from '../audit-chain/verify-trail.js';
import { UsageError } from '../config/usage-error.js';

/** The keys of a PEM file (one or more blocks), pinned: read as the dashboard reads its audit-key. */
export function pinnedTrust(file: string): Trust {
  const read = readKeysFile(file);
  const trust = typeof read === 'string' ? read : trustOfPem(read);
  if (typeof trust === 'string') throw new UsageError(trust);
  return trust;
}
