import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** An opaque prefixed id (`key_…`, `job_…`): 16 random base32 characters. */
export function newId(prefix: string): string {
  const bytes = randomBytes(16);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return `${prefix}_${out}`;
}

/** RFC 3339 UTC without milliseconds when they are zero, with them otherwise. */
export const iso = (ms: number = Date.now()): string => new Date(ms).toISOString().replace('.000Z', 'Z');
