import { StringDecoder } from 'node:string_decoder';
import { csvEntries } from './csv-entries.js';
import { hash } from 'node:crypto';
import { HASHED_AS_READ, Unreadable, type AuditEntryLike, type TrailItem } from './trail-items.js';

/**
 * The entries of an export, JSON Lines or CSV (told apart by the first character: `{` is JSON
 * Lines), from its bytes as they arrive, in batches: one JSON.parse a line, no other copy.
 */
export async function* readTrail(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<TrailItem[]> {
  let format: 'jsonl' | 'csv' | undefined;
  let csv: ReturnType<typeof csvEntries> | undefined;
  let line = 0;
  for await (const text of lines(chunks)) {
    if (!format) {
      const first = text.find((l) => l.trim() !== '');
      if (first === undefined) {
        line += text.length;
        continue;
      }
      format = first.trimStart().startsWith('{') ? 'jsonl' : 'csv';
      if (format === 'csv') csv = csvEntries();
    }
    if (csv) {
      yield csv.push(text);
      continue;
    }
    const batch: TrailItem[] = [];
    for (const l of text) {
      line++;
      if (l.length < 3 && l.trim() === '') continue;
      const fast = hashedLine(l);
      if (fast) {
        batch.push(fast);
        continue;
      }
      let v: unknown;
      try {
        v = JSON.parse(l);
      } catch {
        batch.push(new Unreadable(line, 'not JSON'));
        continue;
      }
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) batch.push(v as Record<string, unknown>);
      else batch.push(new Unreadable(line, 'not a JSON object'));
    }
    yield batch;
  }
  if (csv) yield csv.end();
}

const HASH_TAIL = /,"hash":"([0-9a-f]{64})"}\r?$/;
const SEQ = /^\d{1,15}/;

/**
 * A line the appliance wrote as the entry's canonical text with its hash last (docs/audit-chain.md,
 * "Reading an export fast"), whose bytes hash to that hash: what the chain needs of it (seq,
 * prev_hash, hash) without parsing it. Anything else (another writer's line, a changed one)
 * returns null and is parsed and hashed the long way, which says what is wrong with it. Keys after
 * prev_hash and seq hold no object of arbitrary keys, and a string cannot hold an unescaped
 * quote, so their last occurrence is the entry's own.
 */
function hashedLine(l: string): AuditEntryLike | null {
  const tail = HASH_TAIL.exec(l);
  if (!tail || l.charCodeAt(0) !== 123 /* { */) return null;
  const stated = tail[1];
  if (hash('sha256', `${l.slice(0, tail.index)}}`, 'hex') !== stated) return null;
  const p = l.lastIndexOf('"prev_hash":"', tail.index);
  const q = l.lastIndexOf('"seq":', tail.index);
  if (p < 0 || q < 0) return null;
  const seq = SEQ.exec(l.slice(q + 6, q + 22));
  if (!seq) return null;
  const entry: AuditEntryLike = { seq: Number(seq[0]), prev_hash: l.slice(p + 13, p + 77), hash: stated };
  entry[HASHED_AS_READ] = true;
  return entry;
}

/**
 * Whole lines of each chunk, without the \n (a \r before it stays: JSON ignores it, and CSV
 * must keep it inside a quoted cell), the last partial line carried over.
 */
async function* lines(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let carry = '';
  for await (const chunk of chunks) {
    const text = carry + (typeof chunk === 'string' ? chunk : decoder.write(chunk));
    const out: string[] = [];
    let start = 0;
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
    carry = text.slice(start);
    if (out.length) yield out;
  }
  carry += decoder.end();
  if (carry) yield [carry];
}
