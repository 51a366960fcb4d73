/** 2026-11-21 09:30:12: the table's time, UTC, to the second (the detail view has the exact value). */
export function tableTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 19).replace('T', ' ') : iso;
}
