/**
 * What an export can prove, from how it was narrowed (docs/audit-chain.md, "What a verifier checks").
 * The appliance writes seq in time order, so a time range alone (start_time, end_time) selects a
 * contiguous run of seq: gaps and broken links inside it are entries removed, as in a whole export;
 * only what lies before its start (and after its end) cannot be checked. Any other filter picks
 * entries from all over the trail: only each entry's own hash can be checked.
 */
export interface ExportScope {
  /** seq runs without gaps and each prev_hash links to the entry before */
  chained: boolean;
  /** the file starts at the trail's first entry (#1) */
  fromStart: boolean;
  /** the file ends at the trail's head, the export's signed checkpoint */
  toHead: boolean;
}

export const WHOLE_TRAIL: ExportScope = { chained: true, fromStart: true, toHead: true };
const SELECTION: ExportScope = { chained: false, fromStart: false, toHead: false };
const TIME_FILTERS = new Set(['start_time', 'end_time']);

/**
 * The scope of an export flagged `filtered` (Audit-Export-Filtered) with its filter parameters
 * (API names, as FILE.checkpoint.json keeps them). A filtered export whose filters are unknown
 * is taken as a selection: nothing beyond its entries' own hashes is claimed for it.
 */
export function exportScope(filtered: boolean | undefined, filters?: Record<string, unknown>): ExportScope {
  if (!filtered) return WHOLE_TRAIL;
  if (!filters) return SELECTION;
  const given = Object.keys(filters).filter((k) => filters[k] !== undefined && filters[k] !== null);
  if (!given.length || given.some((k) => !TIME_FILTERS.has(k))) return SELECTION;
  return { chained: true, fromStart: !given.includes('start_time'), toHead: !given.includes('end_time') };
}
