import type { ScreenAction } from './screen-api.js';

/** What an object is in the audit trail: its target type, and the text that finds its entries (its id). */
export interface AuditTarget {
  type: string;
  /** the appliance's search (`q`) over target ids and names and details; null: every entry of the type */
  search: string | null;
}

/**
 * `h` on every screen that shows objects: the audit trail of the selected one (its changes and
 * refusals), opened as the audit list filtered to its target type and searching for its id.
 */
export function auditHistoryAction<Row>(targetOf: (row: Row) => AuditTarget): ScreenAction<Row> {
  return {
    intent: 'history',
    label: 'history',
    // what changed this object, and who: stays on a short hint line before the screen's other keys
    // (a link back to the overview takes room there)
    hintPriority: 61,
    mutates: false,
    needsRow: true,
    async run(ctx, row) {
      const t = targetOf(row);
      ctx.open({ screen: 'audit', filter: t.search ?? '', extra: { filters: { target_type: t.type } } });
    },
  };
}
