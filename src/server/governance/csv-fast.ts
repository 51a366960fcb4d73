import type { CsvColumn } from './csv.js';

/**
 * CSV records assembled by SQLite, one string a row: reading 12 values a row into JavaScript and
 * encoding each costs more than SQLite making the record, and `concat()` makes it in one
 * allocation where `a || ',' || b …` makes one per operator (docs/performance.md).
 * `printf()` would be as fast but cuts a value at a NUL character.
 *
 * SQLite writes each cell as the generic encoder (csv.ts) would when the cell needs neither quotes
 * nor a formula guard: null as empty, an integer in decimal. A column with `quoted` is written in
 * quotes, its quotes doubled. Whether a record is exactly the generic one then depends only on
 * what the cells hold (no comma, `"`, CR or LF in a plain cell, none starting with = + - @ TAB or
 * CR), which one regular expression checks in JavaScript; a record it cannot vouch for, or one
 * SQLite declines (NULL: an integer column holding something else, a `quoted` condition false),
 * is encoded by the generic path from the row's plain values.
 */
export interface FastCsv {
  /** SQL giving the row's record, CRLF-terminated, or NULL where only the generic path can */
  record: string;
  /** Whether `text` is exactly `count` records, each what the generic encoder writes for its row. */
  vouches(text: string, count: number): boolean;
}

const PLAIN_CELL = '(?:[^,"\\r\\n=+\\-@\\t][^,"\\r\\n]*)?';
const INTEGER_CELL = '-?[0-9]*';
const QUOTED_CELL = '"[^"]*(?:""[^"]*)*"';

interface Cell {
  sql: string[];
  pattern: string;
  guard?: string;
}

function cellOf(c: CsvColumn): Cell {
  if (c.quoted)
    return { sql: [`'"'`, `replace(${c.quoted.sql}, '"', '""')`, `'"'`], pattern: QUOTED_CELL, guard: c.quoted.when };
  // a column whose value is made in JavaScript has no fast form: every row takes the generic path
  if (c.value) return { sql: [], pattern: '', guard: 'FALSE' };
  if (c.type === 'integer')
    return { sql: [c.sql], pattern: INTEGER_CELL, guard: `typeof(${c.sql}) IN ('integer', 'null')` };
  return { sql: [c.sql], pattern: PLAIN_CELL };
}

export function fastCsv(columns: CsvColumn[]): FastCsv {
  const cells = columns.map(cellOf);
  const parts = cells.flatMap((c, i) => (i === 0 ? c.sql : [`','`, ...c.sql]));
  const guards = cells.flatMap((c) => (c.guard ? [c.guard] : []));
  const concat = `concat(${[...parts, 'char(13, 10)'].join(', ')})`;
  const record = guards.length ? `CASE WHEN ${guards.join(' AND ')} THEN ${concat} END` : concat;
  const one = new RegExp(`${cells.map((c) => c.pattern).join(',')}\\r\\n`, 'y');
  return {
    record,
    vouches(text, count) {
      one.lastIndex = 0;
      try {
        for (let i = 0; i < count; i++) if (!one.test(text)) return false;
      } catch {
        return false; // a cell too large for the expression's backtracking: let the generic path write it
      }
      return one.lastIndex === text.length;
    },
  };
}
