/** RFC 4180 CSV with spreadsheet formula injection neutralised: the cell rule is src/text/csv-cell.ts. */
import { csvCell, type CsvValue } from '../../text/csv-cell.js';

export { csvCell, type CsvValue };

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
