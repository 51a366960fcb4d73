/**
 * A file of audit keys pinned out of band: `--key` of `audit verify` and `evidence verify`, the
 * dashboard's `--audit-key` and an appliance's `audit-key` in its config file. One or more PEM
 * public keys (the current one and those a rotation retired, as `audit key -o` writes them).
 *
 * Read here as text only, without node:crypto: the dashboard reads it as it starts, and loads the
 * crypto with its chain checks, after its first frame (pinned-keys.ts parses the keys).
 */
import { readFileSync, statSync } from 'node:fs';

/** The key file as read: where it is (for messages) and its text. */
export interface PinnedAuditKey {
  file: string;
  pem: string;
}

/** A key is a few hundred bytes: a file of a hundred keys fits with room to spare. */
const MAX_BYTES = 64 * 1024;
/** At most this many keys are read from one file. */
const MAX_PINNED_KEYS = 100;
const PEM_BLOCK = /-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g;

/** The PEM blocks of a key file's text, at most MAX_PINNED_KEYS. */
export const pemBlocks = (text: string): string[] => (text.match(PEM_BLOCK) ?? []).slice(0, MAX_PINNED_KEYS);

/**
 * The key file's text, or a sentence saying why it cannot be used: not a regular file (a FIFO or a
 * device would hang the reader), too large, unreadable, or holding no PEM public key.
 */
export function readKeysFile(file: string): PinnedAuditKey | string {
  let st;
  try {
    st = statSync(file);
  } catch {
    return `cannot read the key file ${file}`;
  }
  if (!st.isFile()) return `the key file ${file} is not a regular file`;
  if (st.size > MAX_BYTES) return `the key file ${file} is larger than ${MAX_BYTES} bytes`;
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch {
    return `cannot read the key file ${file}`;
  }
  if (!pemBlocks(pem).length) return `the key file ${file} is not a PEM public key`;
  return { file, pem };
}
