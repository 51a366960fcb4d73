import { hash } from 'node:crypto';
import { canonicalLine } from './canonical.js';
import { csvEntries } from './csv-entries.js';
import {
  APP_NAME,
  CHECKPOINT_MSG_ID,
  ENTRY_MSG_ID,
  looksLikeSyslog,
  parseSyslogLine,
  SeenHashes,
} from './syslog-copy.js';
import {
  HASHED_AS_READ,
  MAX_LINE_BYTES,
  NOT_CANONICAL,
  Unreadable,
  type AuditEntryLike,
  type TrailItem,
} from './trail-items.js';

export type TrailFormat = 'jsonl' | 'csv';

/** What a reader told of a syslog copy (syslog-copy.ts): read as JSON Lines, from each line's MSG. */
export interface SyslogCopyInfo {
  /** entries there again with the same hash, kept once */
  repeats: number;
  /** entries after `upTo`, counted and not yielded */
  beyond: number;
  /** lines of other senders or messages (APP-NAME not appliance-admin, MSGID neither audit nor checkpoint) */
  foreign: number;
  /** the appliance's signed checkpoints (MSGID checkpoint), read apart (syslog-checkpoints.ts) */
  checkpoints: number;
}

/** A line longer than MAX_LINE_BYTES: reported, never held. */
export const TOO_LONG = Symbol('too long');
type Line = Buffer | typeof TOO_LONG;

// ignoreBOM: a line of a CSV record may start with U+FEFF (a cell's own text after a line break), which
// TextDecoder would otherwise drop as a byte order mark
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The entries of an export, JSON Lines or CSV (told apart by the first character: `{` is JSON
 * Lines), from its bytes as they arrive, in batches. Integrity is read off the bytes as they came
 * (docs/audit-chain.md, "Only the canonical line"): a JSON Lines line is hashed as it is, and only
 * parsed when that fails, to say why.
 */
export async function* readTrail(
  chunks: AsyncIterable<Buffer | string>,
  /**
   * set to the format once it is told (for a verifier to compare with the signed one); `syslog` is
   * set when the file is a syslog copy, whose entries after `upTo` (what a checkpoint signs ends
   * there) are counted and not yielded
   */
  info: { value?: TrailFormat; syslog?: SyslogCopyInfo; upTo?: number } = {},
): AsyncGenerator<TrailItem[]> {
  let format: TrailFormat | undefined;
  let csv: ReturnType<typeof csvEntries> | undefined;
  let copy: ((bytes: Buffer, line: number) => TrailItem | null) | undefined;
  let line = 0;
  for await (const batch of byteLines(chunks)) {
    if (!format) {
      const first = batch.find((l) => l === TOO_LONG || l.toString('latin1').trim() !== '');
      if (first === undefined) {
        line += batch.length;
        continue;
      }
      const syslog = first !== TOO_LONG && looksLikeSyslog(first);
      format = syslog || (first !== TOO_LONG && first.toString('latin1').trimStart().startsWith('{')) ? 'jsonl' : 'csv';
      info.value = format;
      if (format === 'csv') csv = csvEntries();
      if (syslog) {
        info.syslog = { repeats: 0, beyond: 0, foreign: 0, checkpoints: 0 };
        copy = syslogCopyReader(info.syslog, info.upTo);
      }
    }
    if (csv) {
      const text: (string | Unreadable)[] = [];
      for (const l of batch) {
        line++;
        if (l === TOO_LONG) text.push(new Unreadable(line, `longer than ${MAX_LINE_BYTES} bytes`));
        else {
          try {
            text.push(utf8.decode(l));
          } catch {
            text.push(new Unreadable(line, 'not UTF-8 text'));
          }
        }
      }
      yield csv.push(text);
      continue;
    }
    const items: TrailItem[] = [];
    for (const l of batch) {
      line++;
      if (l === TOO_LONG) {
        items.push(new Unreadable(line, `longer than ${MAX_LINE_BYTES} bytes`));
        continue;
      }
      const bytes = l.length && l[l.length - 1] === 13 ? l.subarray(0, -1) : l;
      if (bytes.length < 3 && bytes.toString('latin1').trim() === '') continue;
      const item = copy ? copy(bytes, line) : (hashedLine(bytes) ?? parsedLine(bytes, line));
      if (item) items.push(item);
    }
    yield items;
  }
  if (csv) yield csv.end();
}

/**
 * A syslog copy's entries (syslog-copy.ts): each line's MSG read as an export's line; an entry sent
 * again (the same seq, and its line hashes to the same hash) kept once; the same seq with another
 * hash, or again with a line that does not hash, a finding; other senders' lines skipped, counted.
 */
function syslogCopyReader(
  info: SyslogCopyInfo,
  upTo: number | undefined,
): (bytes: Buffer, line: number) => TrailItem | null {
  const seen = new SeenHashes();
  return (bytes, line) => {
    const m = parseSyslogLine(bytes);
    if (!m) return new Unreadable(line, 'not an RFC 5424 syslog message');
    if (m.appName === APP_NAME && m.msgId === CHECKPOINT_MSG_ID) {
      info.checkpoints++;
      return null;
    }
    if (m.appName !== APP_NAME || m.msgId !== ENTRY_MSG_ID) {
      info.foreign++;
      return null;
    }
    const item = hashedLine(m.msg) ?? parsedLine(m.msg, line);
    if (item instanceof Unreadable || !Number.isSafeInteger(item.seq)) return item;
    const seq = item.seq as number;
    if (upTo !== undefined && seq > upTo) {
      info.beyond++;
      return null;
    }
    const before = seen.get(seq);
    if (before === undefined) {
      seen.set(seq, item.hash);
      return item;
    }
    if (before === item.hash && item[HASHED_AS_READ]) {
      info.repeats++;
      return null;
    }
    return new Unreadable(
      line,
      before === item.hash
        ? `entry #${seq} is there again, and this line does not hash to its hash: it was changed`
        : `entry #${seq} is there again with another hash: two different entries claim one place in the trail`,
    );
  };
}

/** `,"hash":"` + 64 hex + `"}`: how every line the appliance writes ends. */
const HASH_KEY = Buffer.from(',"hash":"');
const TAIL_BYTES = HASH_KEY.length + 64 + 2;
const PREV_HASH_KEY = Buffer.from('"prev_hash":"');
const SEQ_KEY = Buffer.from('"seq":');
const CLOSE = Buffer.from('}');

/**
 * A line as the appliance writes it (the entry's canonical text with its hash last) whose bytes up to
 * the hash, followed by `}`, hash to that hash: what the chain needs of it (seq, prev_hash, hash)
 * without parsing it. Those bytes are the canonical text the appliance hashed: it hashes nothing else,
 * and the hash is bound by the chain to the signature. Keys after prev_hash and seq hold no object of
 * arbitrary keys, and a string cannot hold an unescaped quote, so their last occurrence is the entry's
 * own. Anything else returns null, to be parsed (parsedLine).
 */
function hashedLine(l: Buffer): AuditEntryLike | null {
  const n = l.length;
  const tail = n - TAIL_BYTES;
  if (tail < 1 || l[0] !== 123 || l[n - 1] !== 125 || l[n - 2] !== 34 || !l.subarray(tail, tail + 9).equals(HASH_KEY))
    return null;
  const stated = l.toString('latin1', tail + 9, n - 2);
  if (!/^[0-9a-f]{64}$/.test(stated)) return null;
  if (hash('sha256', Buffer.concat([l.subarray(0, tail), CLOSE]), 'hex') !== stated) return null;
  const p = l.lastIndexOf(PREV_HASH_KEY, tail);
  const q = l.lastIndexOf(SEQ_KEY, tail);
  if (p < 0 || q < 0) return null;
  const seq = /^\d{1,15}/.exec(l.toString('latin1', q + 6, q + 22));
  if (!seq) return null;
  const entry: AuditEntryLike = { seq: Number(seq[0]), prev_hash: l.toString('latin1', p + 13, p + 77), hash: stated };
  entry[HASHED_AS_READ] = true;
  return entry;
}

/**
 * A line whose bytes did not hash to its stated hash: parsed, so that the verifier can say why (its
 * contents changed, or another tool re-encoded it). It never verifies: its contents may hash right
 * (a duplicate key that JSON.parse drops), but the line is then not the canonical one.
 */
function parsedLine(l: Buffer, line: number): TrailItem {
  let text: string;
  try {
    text = utf8.decode(l);
  } catch {
    return new Unreadable(line, 'not UTF-8 text');
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return new Unreadable(line, 'not JSON');
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return new Unreadable(line, 'not a JSON object');
  const entry = v as AuditEntryLike;
  Object.defineProperty(entry, NOT_CANONICAL, {
    value: (reading: Record<string, unknown>) => {
      let canonical: string | undefined;
      try {
        canonical = canonicalLine(reading);
      } catch {
        /* no canonical form: the hash did not recompute either */
      }
      return canonical === text
        ? null
        : 'its contents hash right, but the line is not their canonical text (re-encoded, a duplicate key, ' +
            'spacing or escapes): only the line the appliance wrote verifies';
    },
    enumerable: false,
  });
  return entry;
}

/**
 * Whole lines of each chunk as bytes, without the \n, the last partial line carried over. A line
 * longer than MAX_LINE_BYTES is TOO_LONG and its bytes are dropped as they come.
 */
export async function* byteLines(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<Line[]> {
  let carry: Buffer[] = [];
  let carried = 0;
  let skipping = false;
  for await (const c of chunks) {
    const chunk = typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
    const out: Line[] = [];
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, i);
      start = i + 1;
      if (skipping) {
        skipping = false;
        out.push(TOO_LONG);
        continue;
      }
      const whole = carried ? Buffer.concat([...carry, piece]) : piece;
      carry = [];
      carried = 0;
      out.push(whole.length > MAX_LINE_BYTES ? TOO_LONG : whole);
    }
    const rest = chunk.subarray(start);
    if (!skipping && rest.length) {
      carry.push(Buffer.from(rest));
      carried += rest.length;
      if (carried > MAX_LINE_BYTES) {
        carry = [];
        carried = 0;
        skipping = true;
      }
    }
    if (out.length) yield out;
  }
  if (skipping) yield [TOO_LONG];
  else if (carried) yield [Buffer.concat(carry)];
}
