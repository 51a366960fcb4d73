/** RFC 4180 CSV cells with spreadsheet formula injection neutralised (OWASP CSV injection). */
export type CsvValue = string | number | boolean | null | undefined;

const NEEDS_QUOTES = /[",\r\n]/;

/** A spreadsheet would evaluate a text cell starting with = + - @ TAB or CR. */
function startsFormula(s: string): boolean {
  const c = s.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13;
}

/**
 * A cell's value before quoting: text that starts like a formula gets a leading `'`; null is empty.
 * Numbers are written as numbers, so a negative count stays -5 rather than the text '-5.
 */
export function csvCellValue(v: CsvValue): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return String(v);
  return startsFormula(v) ? `'${v}` : v;
}

/** One cell, quoted when it must be. */
export function csvCell(v: CsvValue): string {
  const s = csvCellValue(v);
  return NEEDS_QUOTES.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
