import type { CsvColumn } from './csv.js';

/**
 * CSV records mostly assembled by SQLite: reading 12 values a row into JavaScript and encoding each
 * cost about 1.5x what reading two strings and checking them does (test/bench/server-scale).
 *
 * Consecutive columns without `value` are joined by SQLite into one string, `a || ',' || b …`
 * (null as empty, an integer in decimal, as csvCell writes them). That string is exactly those
 * cells' CSV when it holds one comma per separator (so no cell holds a comma) and no `"`, CR or LF,
 * and no cell starts with = + - @ TAB or CR: one count and one regular expression tell. A column
 * with `value` contributes its `cellSql`. Any other row (a NULL part, a failed check) is encoded by
 * the generic path from its plain values: encode() returns null for it.
 */
const UNSAFE = /["\r\n]|(?:^|,)[=+\-@\t\r]/;

interface Part { sql: string; /** separators in a joined run; -1 for a finished cell */ commas: number }

export interface FastCsv {
  /** the expressions to select, one per part */
  select: string[];
  /** the record (CRLF-terminated) from the parts selected at row[offset…], or null */
  encode(row: unknown[], offset: number): string | null;
}

const plainSql = (c: CsvColumn) =>
  c.type === 'integer'
    ? `CASE typeof(${c.sql}) WHEN 'integer' THEN ${c.sql} WHEN 'null' THEN '' END` // a real or text: generic path
    : `coalesce(${c.sql}, '')`;

/** Whether `s` holds exactly `n` commas. */
function hasCommas(s: string, n: number): boolean {
  let p = -1;
  for (let i = 0; i <= n; i++) {
    p = s.indexOf(',', p + 1);
    if (p === -1) return i === n;
  }
  return false;
}

export function fastCsv(columns: CsvColumn[]): FastCsv {
  const parts: Part[] = [];
  let run: CsvColumn[] = [];
  const flush = () => {
    if (run.length) parts.push({ sql: run.map(plainSql).join(` || ',' || `), commas: run.length - 1 });
    run = [];
  };
  for (const c of columns) {
    if (c.value === undefined) run.push(c);
    else {
      flush();
      parts.push({ sql: c.cellSql ?? 'NULL', commas: -1 });
    }
  }
  flush();
  return {
    select: parts.map((p) => p.sql),
    encode(row, offset) {
      let line = '';
      for (let i = 0; i < parts.length; i++) {
        const v = row[offset + i];
        if (typeof v !== 'string') return null;
        const { commas } = parts[i];
        if (commas >= 0 && (!hasCommas(v, commas) || UNSAFE.test(v))) return null;
        line += i === 0 ? v : `,${v}`;
      }
      return `${line}\r\n`;
    },
  };
}
