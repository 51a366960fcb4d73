/** 2026-11-21 09:30:12: the table's time, UTC, to the second (the detail view has the exact value). */
export function tableTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 19).replace('T', ' ') : iso;
}

/** 11-29 09:30: the table's time on a short line, UTC, to the minute (the line under the table has it whole). */
export function shortTableTime(iso: string | null | undefined): string {
  const whole = tableTime(iso);
  return /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(whole) ? whole.slice(5, 16) : whole;
}
