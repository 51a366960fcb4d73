import { offersFilter, type AnyScreen } from '../kit/screen-api.js';
import type { HintAction } from '../widgets/KeyHints.js';
import { whyNot } from './action-allowed.js';
import type { DashboardDeps } from './deps.js';
import type { Offers } from './key-help.js';
import { actionBinding, keyLabel, type ShellAction } from './keymap.js';

/** What the screen offers, which decides the shell's keys on its hint line and in its help. */
export const offersOf = (screen: AnyScreen): Offers => ({
  filter: offersFilter(screen),
  list: Boolean(screen.list),
  opens: Boolean(screen.open),
  enter: screen.enter,
});

/** The screen's actions for the hint line, the help and the screen reader: their keys, and why each is off for this row. */
export function actionHints(
  deps: DashboardDeps,
  screen: AnyScreen,
  row: unknown,
): (HintAction & { mutates: boolean })[] {
  return (screen.actions ?? []).flatMap((a) => {
    const binding = actionBinding(screen, a, deps.keyOverrides);
    if (!binding?.hint || binding.keys.length === 0) return [];
    return [
      {
        key: keyLabel(binding.keys[0], 'hint'),
        label: binding.hint.label,
        priority: binding.hint.priority,
        ...('short' in binding.hint && binding.hint.short !== undefined ? { short: binding.hint.short } : {}),
        mutates: a.mutates,
        disabled: whyNot(deps, screen, a, row),
      },
    ];
  });
}

/** What s and S do on this screen, for the help: a list the appliance orders says how. */
export function sortNote(screen: AnyScreen): Partial<Record<ShellAction, string>> {
  if (!screen.list) return {};
  return {
    'sort-next':
      screen.list.serverOrder?.note ??
      "sort by the next column (▲▼ in its header) / flip the order; past the last: the appliance's order",
  };
}
