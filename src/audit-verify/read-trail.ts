import { StringDecoder } from 'node:string_decoder';
import { csvEntries } from './csv-entries.js';
import { Unreadable, type TrailItem } from './trail-items.js';

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
