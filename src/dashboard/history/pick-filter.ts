/** `A` on a history screen: a filter set by picking one of the values the appliance records. */
import type { ScreenAction } from '../kit/screen-api.js';
import { FIRST_PAGE, historyState, type FilterSpec } from './state.js';

/** "gateway.key.*" for each prefix that two or more known values share: one pick for a family. */
function families(values: string[]): string[] {
  const count = new Map<string, number>();
  for (const v of values) {
    const dot = v.lastIndexOf('.');
    if (dot > 0) count.set(`${v.slice(0, dot)}.*`, (count.get(`${v.slice(0, dot)}.*`) ?? 0) + 1);
  }
  return [...count]
    .filter(([, n]) => n > 1)
    .map(([p]) => p)
    .sort();
}

/** A: sets a filter to a value picked from those the appliance records, or to any. */
export function pickFilterAction<Row>(f: FilterSpec): ScreenAction<Row> {
  const name = f.label.toLowerCase();
  return {
    key: 'A',
    label: `pick ${name}`,
    // the quickest way to the entries of one kind: kept on a short hint line before filter and paging
    hintPriority: 62,
    hintShort: name,
    mutates: false,
    async run(ctx) {
      const h = historyState(ctx.state.extra);
      const now = h.filters[f.name] ?? '';
      // first, so that a hint cut at the dialog's edge still says it
      const hint = (v: string, what: string) => (v === now ? `(current) ${what}` : what);
      const known = [...f.known!].sort((a, b) => (a.value < b.value ? -1 : 1));
      const picked = await ctx.pick<string>({
        title: `Show one ${name}`,
        message: now && !known.some((k) => k.value === now) ? `Now: ${now} (typed with f).` : undefined,
        items: [
          { value: '', label: `any ${name}`, hint: hint('', 'no filter') },
          ...families(known.map((k) => k.value)).map((p) => ({
            value: p,
            label: p,
            hint: hint(p, `every ${p.slice(0, -2)} ${name}`),
          })),
          ...known.map((k) => ({ value: k.value, label: k.value, hint: hint(k.value, k.hint ?? '') })),
        ],
      });
      if (picked === null || picked === now) return;
      const filters = { ...h.filters, [f.name]: picked };
      if (picked === '') delete filters[f.name];
      ctx.setExtra({ filters, ...FIRST_PAGE }, { top: true });
    },
  };
}
