/** RFC 4180 CSV with spreadsheet formula injection neutralised. */
export type CsvValue = string | number | boolean | null | undefined;

/**
 * One column of an export, read straight from the database row (no entry object is built: an
 * export of 1,000,000 rows spends most of its time per row). `sql` is the selected expression;
 * `value` turns what it selects into the cell's value when that is not the value as is.
 */
export interface CsvColumn {
  header: string;
  /** the selected column or expression */
  sql: string;
  /** what it yields: text (the default) or an integer */
  type?: 'text' | 'integer';
  /** the cell's value from what `sql` selects, when that is not the value as is */
  value?: (v: unknown) => CsvValue;
  /**
   * With `value`: where `when` holds, the cell is `sql`'s text in quotes with its quotes doubled,
   * as `value` and csvCell would write it (csv-fast.ts); elsewhere `value` decides.
   */
  quoted?: { sql: string; when: string };
}

const NEEDS_QUOTES = /[",\r\n]/;

/** A spreadsheet would evaluate a text cell starting with = + - @ TAB or CR (OWASP CSV injection). */
function startsFormula(s: string): boolean {
  const c = s.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13;
}

/**
 * One cell. Only text is guarded with a leading `'`: numbers are written as numbers, so a
 * negative count stays -5 rather than becoming the text '-5. Null is an empty cell.
 */
export function csvCell(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return String(v);
  const s = startsFormula(v) ? `'${v}` : v;
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One record, CRLF-terminated. */
export const csvLine = (cells: CsvValue[]): string => `${cells.map(csvCell).join(',')}\r\n`;

export const csvHeader = (columns: CsvColumn[]): string => csvLine(columns.map((c) => c.header));

/** The record of a row selected as `…, <each column's sql>` with the columns starting at `offset`. */
export function csvRecordEncoder(columns: CsvColumn[], offset: number): (row: unknown[]) => string {
  const n = columns.length;
  const value = columns.map((c) => c.value);
  return (row) => {
    let line = '';
    for (let i = 0; i < n; i++) {
      const raw = row[offset + i];
      const f = value[i];
      line += (i === 0 ? '' : ',') + csvCell((f ? f(raw) : raw) as CsvValue);
    }
    return `${line}\r\n`;
  };
}
