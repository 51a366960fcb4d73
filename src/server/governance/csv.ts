/** RFC 4180 CSV with spreadsheet formula injection neutralised. */
export type CsvValue = string | number | boolean | null | undefined;
export interface CsvColumn<E> { header: string; value(entry: E): CsvValue }

/** A spreadsheet would evaluate a text cell starting with one of these (OWASP CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One cell. Only text is guarded with a leading `'`: numbers are written as numbers, so a
 * negative count stays -5 rather than becoming the text '-5. Null is an empty cell.
 */
export function csvCell(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return String(v);
  const s = FORMULA_START.test(v) ? `'${v}` : v;
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** One record, CRLF-terminated. */
export const csvLine = (cells: CsvValue[]): string => `${cells.map(csvCell).join(',')}\r\n`;

export const csvHeader = <E>(columns: CsvColumn<E>[]): string => csvLine(columns.map((c) => c.header));
export const csvRecord = <E>(columns: CsvColumn<E>[], entry: E): string => csvLine(columns.map((c) => c.value(entry)));
