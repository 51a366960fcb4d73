import { isShellAction, keyLabel, type Binding, type KeyContext, type ShellAction } from './keymap.js';

/** What the visible screen offers, which decides the shell's bindings shown for it. */
export interface Offers {
  /** `/` filters it (src/dashboard/kit/screen-api.ts offersFilter) */
  filter: boolean;
  list: boolean;
  /** Enter on a row opens another screen */
  opens: boolean;
  /** the label of the action Enter runs on a row instead (screen-api.ts `enter`) */
  enter?: string;
  /** the screen whose link opened this one: Esc returns there */
  backTo?: string;
}

const shown = (b: Binding, offers: Offers) =>
  b.keys.length > 0 &&
  (b.needs === undefined || offers[b.needs]) &&
  (b.in.includes('normal') || b.in.includes('detail'));

const returnsHelp = (b: Binding, screen: string) => b.returns?.help.replace('{screen}', screen);

/** Where the keys are now, which decides what the hint line may promise. */
interface KeysNow {
  /** the view that has the keys: the screen, an open detail, the `?` help */
  context: KeyContext;
  /** a `/` filter is set or being typed: Esc clears it before it goes back */
  filtered: boolean;
}

const ON_THE_SCREEN: KeysNow = { context: 'normal', filtered: false };

/**
 * The shell's keys on the hint line, in table order: only those that work where the keys are now,
 * each with the word for what it does there (Enter in a detail view closes it; Esc on a screen a link
 * opened clears the filter first, then goes back).
 */
export function shellHints(
  keymap: readonly Binding[],
  offers: Offers,
  now: KeysNow = ON_THE_SCREEN,
): { key: string; label: string; priority: number; short?: string }[] {
  // the way back is Esc's next step only on the screen itself: in a detail Esc closes it
  const returning = (b: Binding) => b.returns !== undefined && offers.backTo !== undefined && now.context === 'normal';
  return keymap
    .filter((b) => (b.hint || returning(b)) && isShellAction(b.id) && shown(b, offers) && b.in.includes(now.context))
    .map((b) => {
      const key = keyLabel(b.keys[0], 'hint');
      if (returning(b)) {
        const step = (now.filtered && b.returns!.filtered) || {
          label: `back to ${offers.backTo}`,
          short: b.returns!.short,
        };
        return { key, label: step.label, priority: b.returns!.priority, short: step.short };
      }
      const label =
        (now.context === 'detail' && b.inDetail?.label) ||
        (b.id === 'open' && offers.enter) ||
        (offers.opens && b.opens?.label) ||
        b.hint!.label;
      return { key, label, priority: b.hint!.priority, short: undefined };
    });
}

/**
 * The `?` help's lines for the shell's keys: an action with those listed with it (helpWith). Keys
 * of actions with several keys are shown by rank (↑ ↓  k j), others side by side (Tab  Shift-Tab).
 * `notes` replace an action's help on this screen (what s does on a history).
 */
export function shellHelp(
  keymap: readonly Binding[],
  offers: Offers,
  notes: Partial<Record<ShellAction, string>> = {},
): [keys: string, text: string][] {
  const own = keymap.filter((b) => isShellAction(b.id) && shown(b, offers));
  return own
    .filter((b) => !b.helpWith || !own.some((o) => o.id === b.helpWith))
    .map((lead) => {
      const line = [lead, ...own.filter((b) => b.helpWith === lead.id)];
      const ranks = Math.max(...line.map((b) => b.keys.length));
      const keys =
        ranks > 1
          ? Array.from({ length: ranks }, (_, i) =>
              line
                .map((b) => b.keys[i])
                .filter((k) => k !== undefined)
                .map((k) => keyLabel(k))
                .join(' '),
            ).join('  ')
          : line.map((b) => keyLabel(b.keys[0])).join('  ');
      const enter = lead.id === 'open' && offers.enter ? `the row's ${offers.enter}` : undefined;
      const returns = offers.backTo && returnsHelp(lead, offers.backTo);
      const note = isShellAction(lead.id) ? notes[lead.id] : undefined;
      const text = note ?? (enter || returns || (offers.opens && lead.opens?.help) || lead.help);
      return [keys, text];
    });
}
