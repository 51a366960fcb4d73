import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countCsvRecords, countJsonlRecords } from '../../src/text/record-count.js';

const bytesOf = (...parts: string[]) => parts.map((p) => Buffer.from(p, 'utf8'));

describe('countCsvRecords', () => {
  it.each([
    ['header only, CRLF', 'id,at\r\n', 0],
    ['header only, no line end', 'id,at', 0],
    ['CRLF after every record', 'id,at\r\na,1\r\nb,2\r\n', 2],
    ['LF after every record', 'id,at\na,1\nb,2\n', 2],
    ['the last record without a line end', 'id,at\r\na,1\r\nb,2', 2],
    ['the last record ended by a lone CR', 'id,at\r\na,1\r\nb,2\r', 2],
    ['a lone CR after the last CRLF', 'id,at\r\na,1\r\n\r', 1],
    ['a quoted cell holding CRLF and LF', 'id,text\r\na,"x\r\ny"\r\nb,"p\nq ""r"""\r\n', 2],
    ['an empty file', '', 0],
  ])('%s', async (_what, text, expected) => {
    expect(await countCsvRecords(bytesOf(text))).toBe(expected);
  });

  it('a CRLF split between two chunks, and a quote at a chunk edge, count as in one chunk', async () => {
    expect(await countCsvRecords(bytesOf('id,text\r', '\na,"x\r', '\ny"\r', '\nb,2\r'))).toBe(2);
  });

  it('reads a file as it streams', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'csv-count-')), 'audit.csv');
    writeFileSync(file, `id,at\r\n${'a,"multi\r\nline"\r\n'.repeat(20_000)}b,last\r`);
    expect(await countCsvRecords(createReadStream(file, { highWaterMark: 1024 }))).toBe(20_001);
  });
});

describe('countJsonlRecords', () => {
  it.each([
    ['LF', '{"a":1}\n{"a":2}\n', 2],
    ['CRLF', '{"a":1}\r\n{"a":2}\r\n', 2],
    ['the last line without a line end', '{"a":1}\n{"a":2}', 2],
    ['the last line ended by a lone CR', '{"a":1}\r\n{"a":2}\r', 2],
    ['blank lines', '\n{"a":1}\r\n \r\n\n', 1],
    ['an empty file', '', 0],
  ])('%s', async (_what, text, expected) => {
    expect(await countJsonlRecords(bytesOf(text))).toBe(expected);
  });
});
