/**
 * The audit trail as a syslog receiver keeps it (docs/operations.md, "A copy off the host"): one
 * RFC 5424 line per message, `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID SD MSG`, MSG being the
 * entry's canonical export line. What verifies is MSG's bytes, as for an export; the header and the
 * structured data are the receiver's and the transport's, and nothing is believed of them.
 *
 * The appliance sends at least once, so an entry may be there twice: the same seq with the same
 * hash is one entry, kept once; the same seq with another hash is two entries claiming one place.
 * Each signed checkpoint is a message of its own (MSGID `checkpoint`: syslog-checkpoints.ts).
 */

/** APP-NAME and MSGIDs of the appliance's messages: an entry, and a signed checkpoint (src/server/audit-forward/) */
export const APP_NAME = 'appliance-admin';
export const ENTRY_MSG_ID = 'audit';
export const CHECKPOINT_MSG_ID = 'checkpoint';

const SP = 0x20;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Whether a file's first line is an RFC 5424 message (`<PRI>1 `). */
export const looksLikeSyslog = (firstLine: Buffer): boolean => /^<\d{1,3}>1 /.test(firstLine.toString('latin1', 0, 8));

export interface SyslogMessage {
  appName: string;
  msgId: string;
  /** MSG, without a leading byte order mark */
  msg: Buffer;
}

/** The fields of an RFC 5424 line a verifier needs, or null when it is not one. */
export function parseSyslogLine(line: Buffer): SyslogMessage | null {
  if (!looksLikeSyslog(line)) return null;
  // <PRI>1, TIMESTAMP, HOSTNAME, APP-NAME, PROCID, MSGID: six fields, each ended by one space
  const fields: string[] = [];
  let at = 0;
  for (let i = 0; i < 6; i++) {
    const end = line.indexOf(SP, at);
    if (end <= at) return null;
    fields.push(line.toString('latin1', at, end));
    at = end + 1;
  }
  const sdEnd = structuredDataEnd(line, at);
  if (sdEnd === -1) return null;
  let msg = sdEnd >= line.length ? Buffer.alloc(0) : line[sdEnd] === SP ? line.subarray(sdEnd + 1) : null;
  if (msg === null) return null;
  if (msg.subarray(0, 3).equals(BOM)) msg = msg.subarray(3);
  return { appName: fields[3], msgId: fields[5], msg };
}

/** Where the STRUCTURED-DATA starting at `at` ends (`-`, or `[…]` elements with escaped values), or -1. */
function structuredDataEnd(line: Buffer, at: number): number {
  if (line[at] === 0x2d) return at + 1;
  let i = at;
  if (line[i] !== 0x5b) return -1;
  while (line[i] === 0x5b) {
    let quoted = false;
    for (i++; ; i++) {
      if (i >= line.length) return -1;
      const c = line[i];
      if (quoted && c === 0x5c) i++;
      else if (c === 0x22) quoted = !quoted;
      else if (!quoted && c === 0x5d) break;
    }
    i++;
  }
  return i;
}

/**
 * The hash seen for each seq of a copy, 32 bytes a seq from the first one read: enough to tell a
 * repeat (the same entry sent again) from a rewrite, in constant memory per entry.
 */
export class SeenHashes {
  private base = -1;
  private store = Buffer.alloc(0);
  private top = 0;

  /** The hash recorded for `seq`, or undefined when none was. */
  get(seq: number): string | undefined {
    const i = seq - this.base;
    if (this.base < 0 || i < 0 || i >= this.top) return undefined;
    const h = this.store.subarray(i * 33, i * 33 + 33);
    return h[0] === 1 ? h.toString('hex', 1) : h[0] === 2 ? '' : undefined;
  }

  set(seq: number, hash: unknown): void {
    if (this.base < 0) this.base = seq;
    const i = seq - this.base;
    if (i < 0 || i > 50_000_000) return; // before the first seq read, or absurdly far: not kept
    if (i >= this.top) this.top = i + 1;
    if ((i + 1) * 33 > this.store.length) {
      const grown = Buffer.alloc(Math.max(33 * 1024, this.store.length * 2, (i + 1) * 33));
      this.store.copy(grown);
      this.store = grown;
    }
    const valid = typeof hash === 'string' && /^[0-9a-f]{64}$/.test(hash);
    this.store[i * 33] = valid ? 1 : 2;
    if (valid) this.store.write(hash, i * 33 + 1, 'hex');
  }
}
