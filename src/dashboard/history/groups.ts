/**
 * The grouped view of a history (audit, journal): counts over the whole match of the list's
 * filters and search, by a field the operator picks; choosing a group filters the list to it.
 */
import type { ScreenAction } from '../kit/screen-api.js';
import { wholeMatchQuery } from './query.js';
import { FIRST_PAGE, searchedState, type HistorySpec } from './state.js';
import { describeFilters } from './summary.js';
import { thousands } from '../../text/thousands.js';

/** Groups a summary returns at most (the contract allows 500; more is no longer an overview). */
const GROUP_LIMIT = 100;
const BAR = 12;

/**
 * A screen's groups from a label per group name. Typed over the contract's own list of names
 * (`Record<G, string>`), so tsc fails when a screen offers a group the server refuses or misses
 * one it offers, without loading the contract's schemas at start.
 */
export const groupsOf = <G extends string>(labels: Record<G, string>): { name: G; label: string }[] =>
  (Object.keys(labels) as G[]).map((name) => ({ name, label: labels[name] }));

export function groupAction<Row>(spec: HistorySpec): ScreenAction<Row> {
  return {
    key: 'v',
    label: 'groups',
    // the answer to "who / what most": kept on a short hint line before filter and paging
    hintPriority: 62,
    mutates: false,
    async run(ctx) {
      const h = searchedState(ctx.state);
      const where = describeFilters(spec, h);
      const by = await ctx.pick({
        title: `Count the ${spec.noun} by`,
        message: `Over every match of: ${where}.`,
        items: spec.groups.map((g) => ({
          value: g,
          label: g.label,
          hint: h.filters[g.name] ? `the list has ${g.label.toLowerCase()} ${h.filters[g.name]}` : undefined,
        })),
      });
      if (!by) return;
      const summary = await ctx.call(spec.summaryRoute, {
        query: { ...wholeMatchQuery(h, Date.now()), group_by: by.name, limit: GROUP_LIMIT },
      });
      const largest = Math.max(1, ...summary.groups.map((g) => g.count));
      const other = summary.other > 0 ? ` ${thousands(summary.other)} more in groups not shown.` : '';
      const group = await ctx.pick({
        title: `${cap(spec.noun)} by ${by.label.toLowerCase()}: ${thousands(summary.total)} in all`,
        message: `${where}.${other} Enter lists a group's entries; Esc goes back to the list.`,
        items: summary.groups.map((g) => ({
          value: g,
          label: g.key ?? `(no ${by.label.toLowerCase()})`,
          hint: `${thousands(g.count).padStart(7)}  ${'█'.repeat(Math.max(1, Math.round((g.count / largest) * BAR)))}`,
        })),
      });
      if (!group) return;
      if (group.key === null) {
        return {
          title: 'Not a filter',
          tone: 'info',
          summary: [
            `The ${thousands(group.count)} ${spec.noun} without a ${by.label.toLowerCase()} cannot be listed by a filter: the appliance filters on a value.`,
          ],
        };
      }
      const filters = { ...searchedState({ filter: '', extra: ctx.state.extra }).filters, [by.name]: group.key };
      ctx.setExtra({ filters, ...FIRST_PAGE }, { top: true });
    },
  };
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
