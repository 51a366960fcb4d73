import { extractRows } from '../dashboard/shell/screen-data.js';
import { flatten } from '../dashboard/kit/flatten.js';
import { sanitize } from '../text/sanitize.js';
import type { AnyScreen, Column } from '../dashboard/kit/screen-api.js';
import { cellText } from '../dashboard/kit/table-layout.js';
import { fit, widthOf } from '../dashboard/kit/text.js';
import { fetchedEntries, type Fetched } from './screen-fetch.js';
import { EMPTY_SCREEN_STATE } from '../dashboard/kit/screen-state.js';

/**
 * A screen as plain text for a terminal or a log: a list screen as its columns (the same cell
 * text the dashboard shows, no colour, no cursor), any other screen as `field  value` lines.
 */
export function screenText(screen: AnyScreen, fetched: Fetched[]): string {
  const out: string[] = [];
  if (screen.list) {
    const primaryId = screen.list.resource ?? fetched[0]?.request.id;
    const primary = fetched.find((f) => f.request.id === primaryId);
    const related = Object.fromEntries(fetched.filter((f) => f !== primary).map((f) => [f.request.id, f.data]));
    const rows = screen.list.rowsFrom
      ? screen.list.rowsFrom(fetchedEntries(fetched))
      : extractRows(screen.list, primary?.data, related);
    const summary = safe(() => screen.list!.summary?.(rows, { data: primary?.data, state: EMPTY_SCREEN_STATE }));
    if (summary) out.push(sanitize(summary, 500), '');
    const empty = screen.list.empty;
    if (rows.length === 0)
      out.push(sanitize((typeof empty === 'function' ? empty(EMPTY_SCREEN_STATE) : empty) ?? 'Nothing to show.', 500));
    else out.push(...table(screen.list.columns, rows));
    // the rows already join what the list reads from its other resources (keys: last hour's rejections)
  } else {
    for (const f of fetched) {
      if (fetched.length > 1) out.push(`${f.request.id}:`);
      out.push(...fieldLines(f.data, fetched.length > 1 ? '  ' : ''), ...(fetched.length > 1 ? [''] : []));
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function table(columns: Column<unknown>[], rows: unknown[]): string[] {
  const cells = rows.map((r) => columns.map((c) => cellText(c, r)));
  const widths = columns.map(
    (c, i) =>
      c.width ?? Math.min(c.maxWidth ?? 40, Math.max(widthOf(c.header), ...cells.map((row) => widthOf(row[i])))),
  );
  const line = (texts: string[]) =>
    texts
      .map((t, i) => fit(t, widths[i], columns[i].align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)];
}

function fieldLines(data: unknown, indent: string): string[] {
  const pairs = flatten(data);
  const keyWidth = Math.min(40, Math.max(0, ...pairs.map(([k]) => widthOf(k))));
  // keys are padded, never cut: a script may grep for them
  return pairs.map(([k, v]) => {
    const key = sanitize(k, 500);
    return `${indent}${key}${' '.repeat(Math.max(0, keyWidth - widthOf(key)))}  ${sanitize(v, 2000)}`.trimEnd();
  });
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}
