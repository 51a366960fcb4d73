import type { AnyScreen, Column } from '../kit/screen-api.js';

/** A column's header as the operator may type it: any case. */
export const findHeader = (headers: readonly string[], typed: string): string | undefined =>
  headers.find((h) => h.toLowerCase() === typed.trim().toLowerCase());

const shown = new WeakMap<readonly string[], { from: readonly Column<never>[]; columns: Column<never>[] }>();

/**
 * The list's columns as the operator chose them (`:columns`), in that order; headers the screen
 * no longer has are skipped. The same choice gives the same array, so the table's layout is kept.
 */
export function chosenColumns<Row>(
  columns: Column<Row>[],
  chosen: readonly string[] | null | undefined,
): Column<Row>[] {
  if (!chosen) return columns;
  const kept = shown.get(chosen);
  if (kept?.from === columns) return kept.columns as Column<Row>[];
  const picked = chosen.flatMap((h) => columns.filter((c) => c.header === h));
  const result = picked.length ? picked : columns;
  shown.set(chosen, { from: columns as Column<never>[], columns: result as Column<never>[] });
  return result;
}

/** `show`: the header back in the place the screen gives it among the columns shown. */
export function showColumn(all: readonly string[], visible: readonly string[], header: string): string[] {
  if (visible.includes(header)) return [...visible];
  const rank = all.indexOf(header);
  const at = visible.findIndex((h) => all.indexOf(h) > rank);
  return at < 0 ? [...visible, header] : [...visible.slice(0, at), header, ...visible.slice(at)];
}

/** `order A,B`: those first, in that order, then the others shown as before. */
export const orderColumns = (visible: readonly string[], first: readonly string[]): string[] => [
  ...first,
  ...visible.filter((h) => !first.includes(h)),
];

/** The list's column headers, or why the screen has none to sort or choose. */
export function listColumns(screen: AnyScreen): string[] | string {
  if (!screen.list) return `the ${screen.name} screen is not a list`;
  return screen.list.columns.map((c) => c.header);
}
