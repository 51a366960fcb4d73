/**
 * How many rows an export file holds, counted from its bytes as they stream by (an export may be
 * larger than memory). The CLI and the dashboard both report this number after an export.
 */

type Chunks = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/**
 * Records of an RFC 4180 file after its header row. A record ends at a line feed outside quotes
 * (a quoted cell may hold line breaks); a carriage return only ever precedes one, so a last
 * record ended by CRLF, by a lone CR or by nothing at all counts once.
 */
export async function countCsvRecords(chunks: Chunks): Promise<number> {
  let quoted = false;
  let records = 0;
  let pending = false; // characters since the last record ended
  for await (const chunk of chunks) {
    for (const b of chunk) {
      if (b === QUOTE) quoted = !quoted;
      if (b === LF && !quoted) {
        records++;
        pending = false;
      } else if (b !== CR) pending = true;
    }
  }
  if (pending) records++;
  return Math.max(0, records - 1);
}

/** Non-blank lines of a JSON Lines file (LF or CRLF, the last one with or without its line end). */
export async function countJsonlRecords(chunks: Chunks): Promise<number> {
  let rows = 0;
  let pending = false;
  for await (const chunk of chunks) {
    for (const b of chunk) {
      if (b === LF) {
        if (pending) rows++;
        pending = false;
      } else if (b !== CR && b !== 0x20) pending = true;
    }
  }
  return rows + (pending ? 1 : 0);
}
