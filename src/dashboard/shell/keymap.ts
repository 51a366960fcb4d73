import type { Key } from 'ink';
import type { AnyScreen } from '../kit/screen-api.js';
import type { ShellAction } from '../../config/shell-actions.js';

/**
 * A key as the keymap names it: one printable character ('q', 'G', '/'), or one of the named
 * keys of KEY_LABELS ('return', 'shift-tab', 'ctrl-c').
 */
export type KeyName = string;

/**
 * Where a binding applies: the screen itself (normal), the detail view of a row, the `?` help,
 * and a window too small to draw the dashboard in.
 */
export type KeyContext = 'normal' | 'detail' | 'help' | 'too-small';

/** The shell's own actions (shell-actions.ts); a screen's actions are named `<screen>.<label>` (screenBindings). */
export type { ShellAction };

export interface Binding {
  id: string;
  /** the keys that run it, the first one shown in the hints; none: unbound */
  keys: KeyName[];
  /** its word on the hint line, and how long it stays there when the line is short (higher: longer) */
  hint: { label: string; priority: number } | null;
  /** what it does, for the `?` help */
  help: string;
  /** listed on the help line of that action (↑ with ↓), which says what both do */
  helpWith?: string;
  /** where the key does it */
  in: KeyContext[];
  /** what the screen must offer for the binding to be shown: `/` filters only some (offersFilter), s S sort lists */
  needs?: 'filter' | 'list';
  /** its word and help on a screen whose rows open another screen (the overview) */
  opens?: { label: string; help: string };
  /** on a screen a link opened: its hint (only there) and help line, naming the screen it returns to */
  returns?: { priority: number; help: (screen: string) => string };
}

const VIEW: KeyContext[] = ['normal', 'detail'];

/**
 * Every key of the shell: what it does where, its hint and its help line. The shell's key
 * handling, the hint line and the `?` help all read this table; the order is theirs too.
 */
export const SHELL_BINDINGS: readonly Binding[] = [
  { id: 'cursor-up', keys: ['up', 'k'], hint: null, help: 'move the cursor', in: VIEW },
  { id: 'cursor-down', keys: ['down', 'j'], hint: null, help: 'move the cursor down', helpWith: 'cursor-up', in: VIEW },
  { id: 'page-up', keys: ['pageup'], hint: null, help: 'move a page', in: VIEW },
  { id: 'page-down', keys: ['pagedown'], hint: null, help: 'move a page down', helpWith: 'page-up', in: VIEW },
  { id: 'first', keys: ['home', 'g'], hint: null, help: 'first / last row', in: VIEW },
  { id: 'last', keys: ['end', 'G'], hint: null, help: 'last row', helpWith: 'first', in: VIEW },
  {
    id: 'open',
    keys: ['return'],
    hint: { label: 'detail', priority: 50 },
    help: 'detail view of the row: every field the server sent',
    in: VIEW,
    opens: { label: 'open', help: "open the screen that shows the row's cause, on that cause" },
  },
  {
    id: 'back',
    keys: ['escape'],
    hint: null,
    help: 'back (closes detail, help, dialogs; clears the filter; else to the screen a link came from)',
    in: ['normal', 'detail', 'help'],
    returns: {
      // the way home after h or Enter opened this screen: kept on an 80-column hint line before the
      // screen's own keys (60), which `?` lists in full
      priority: 62,
      help: (screen) => `back (closes detail, help, dialogs; clears the filter; else to ${screen}, which opened this)`,
    },
  },
  { id: 'next-screen', keys: ['tab'], hint: { label: 'next', priority: 15 }, help: 'next / previous screen', in: VIEW },
  {
    id: 'previous-screen',
    keys: ['shift-tab'],
    hint: null,
    help: 'previous screen',
    helpWith: 'next-screen',
    in: VIEW,
  },
  {
    id: 'command',
    keys: [':'],
    hint: { label: 'screen', priority: 30 },
    help: 'command line: a screen name or a command (Tab completes; the commands are below)',
    in: VIEW,
  },
  {
    id: 'filter',
    keys: ['/'],
    hint: { label: 'filter', priority: 45 },
    help: 'filter the rows (Enter keeps it, Esc clears it)',
    in: ['normal'],
    needs: 'filter',
  },
  {
    id: 'sort-next',
    keys: ['s'],
    hint: { label: 'sort', priority: 40 },
    help: 'sort the list (its screen says how)',
    in: ['normal'],
    needs: 'list',
  },
  {
    id: 'sort-flip',
    keys: ['S'],
    hint: null,
    help: 'flip the order of the sorted list',
    helpWith: 'sort-next',
    in: ['normal'],
    needs: 'list',
  },
  {
    id: 'refresh',
    keys: ['r'],
    hint: { label: 'refresh', priority: 35 },
    help: 'refresh now (also skips a reconnect wait; when signed out: sign in again)',
    in: VIEW,
  },
  {
    id: 'pause',
    keys: ['P'],
    hint: null,
    help: 'pause polling (PAUSED in the header; r still refreshes once); again resumes',
    in: VIEW,
  },
  // ? and q stay on the hint line whatever its width: they lead to everything else, and out
  {
    id: 'help',
    keys: ['?'],
    hint: { label: 'help', priority: 100 },
    help: 'this help',
    in: ['normal', 'detail', 'help'],
  },
  {
    id: 'quit',
    keys: ['q', 'ctrl-c'],
    hint: { label: 'quit', priority: 100 },
    help: 'quit (also :q)',
    in: ['normal', 'detail', 'help', 'too-small'],
  },
];

/** A screen's action on the hint line: after ? and q, before the shell's other keys. */
const ACTION_HINT_PRIORITY = 60;

/** The bindings of a screen's actions; their keys work on the screen and in its detail view. */
export function screenBindings(screen: AnyScreen): Binding[] {
  return (screen.actions ?? []).map((a) => ({
    id: screenActionId(screen, a.label),
    keys: [a.key],
    hint: { label: a.label, priority: a.hintPriority ?? ACTION_HINT_PRIORITY },
    help: a.label,
    in: VIEW,
  }));
}

export const screenActionId = (screen: AnyScreen, label: string) =>
  `${screen.name}.${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

export interface Conflict {
  key: KeyName;
  context: KeyContext;
  /** the bindings the key would run there, in table order */
  ids: string[];
}

/**
 * The table with `overrides` applied (an action id and its keys instead of the built-in ones;
 * an empty list unbinds it), and every key that would run two actions in one place.
 */
export function resolveKeymap(
  builtin: readonly Binding[],
  overrides: Readonly<Record<string, KeyName[]>> = {},
): { keymap: Binding[]; conflicts: Conflict[] } {
  const keymap = builtin.map((b) => (Object.hasOwn(overrides, b.id) ? { ...b, keys: [...overrides[b.id]] } : b));
  const seen = new Map<string, Conflict>();
  for (const b of keymap) {
    for (const key of new Set(b.keys)) {
      for (const context of b.in) {
        const at = `${context}\n${key}`;
        const c = seen.get(at);
        if (c) c.ids.push(b.id);
        else seen.set(at, { key, context, ids: [b.id] });
      }
    }
  }
  return { keymap, conflicts: [...seen.values()].filter((c) => c.ids.length > 1) };
}

/** Rebindings by action id (a config file's `keys:`); an empty list unbinds. */
export type KeyOverrides = Readonly<Record<string, KeyName[]>>;
const NO_OVERRIDES: KeyOverrides = {};
const keymaps = new WeakMap<KeyOverrides, WeakMap<AnyScreen, Binding[]>>();

/** The shell's bindings and the screen's, with the operator's rebindings, as the shell uses them on that screen. */
export function keymapOf(screen: AnyScreen, overrides: KeyOverrides = NO_OVERRIDES): Binding[] {
  let byScreen = keymaps.get(overrides);
  if (!byScreen) keymaps.set(overrides, (byScreen = new WeakMap()));
  let keymap = byScreen.get(screen);
  if (!keymap)
    byScreen.set(screen, (keymap = resolveKeymap([...SHELL_BINDINGS, ...screenBindings(screen)], overrides).keymap));
  return keymap;
}

/**
 * What is wrong with a set of rebindings on these screens, in words naming both actions of a
 * conflict (`"x" would run both quit and keys.revoke on the keys screen`), or an unknown action.
 */
export function rebindingProblems(screens: readonly AnyScreen[], overrides: KeyOverrides): string[] {
  const known = new Set([
    ...SHELL_BINDINGS.map((b) => b.id),
    ...screens.flatMap((s) => screenBindings(s).map((b) => b.id)),
  ]);
  const problems = Object.keys(overrides)
    .filter((id) => !known.has(id))
    .map((id) => `no action "${id}"`);
  const seen = new Set<string>();
  for (const screen of screens) {
    for (const c of resolveKeymap([...SHELL_BINDINGS, ...screenBindings(screen)], overrides).conflicts) {
      const text = `"${keyLabel(c.key)}" would run both ${c.ids.join(' and ')}${c.ids.some((id) => id.includes('.')) ? ` on the ${screen.name} screen` : ''}`;
      if (seen.has(text)) continue;
      seen.add(text);
      problems.push(text);
    }
  }
  return problems;
}

/** The keymap's name for what Ink read, or null for a key no binding can have. */
export function keyName(input: string, key: Key): KeyName | null {
  if (key.ctrl && input === 'c') return 'ctrl-c';
  if (key.tab) return key.shift ? 'shift-tab' : 'tab';
  if (key.escape) return 'escape';
  if (key.return) return 'return';
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.backspace) return 'backspace';
  if (key.delete) return 'delete';
  if ([...input].length !== 1) return null;
  // bindable from a config file (ctrl+x, alt+f)
  if (key.ctrl) return `ctrl-${input.toLowerCase()}`;
  if (key.meta) return `alt-${input}`;
  return input;
}

/** The binding a key runs in a context, if any. */
export function bindingFor(keymap: readonly Binding[], key: KeyName | null, context: KeyContext): Binding | undefined {
  return key === null ? undefined : keymap.find((b) => b.in.includes(context) && b.keys.includes(key));
}

const KEY_LABELS: Record<string, string> = {
  up: '↑',
  down: '↓',
  pageup: 'PgUp',
  pagedown: 'PgDn',
  home: 'Home',
  end: 'End',
  escape: 'Esc',
  return: 'Enter',
  tab: 'Tab',
  'shift-tab': 'Shift-Tab',
  'ctrl-c': 'Ctrl-C',
  left: '←',
  right: '→',
  backspace: 'Backspace',
  delete: 'Delete',
  ' ': 'Space',
};

/** How a key is written for the operator; Enter is ⏎ on the hint line, where room is short. */
export function keyLabel(key: KeyName, where: 'help' | 'hint' = 'help'): string {
  if (where === 'hint' && key === 'return') return '⏎';
  const mod = /^(ctrl|alt)-(.+)$/.exec(key);
  if (mod)
    return `${mod[1] === 'ctrl' ? 'Ctrl' : 'Alt'}-${mod[2].length === 1 ? mod[2].toUpperCase() : (KEY_LABELS[mod[2]] ?? mod[2])}`;
  return KEY_LABELS[key] ?? key;
}

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

/** The shell's keys on the hint line, in table order. */
export function shellHints(
  keymap: readonly Binding[],
  offers: Offers,
): { key: string; label: string; priority: number }[] {
  return keymap
    .filter((b) => (b.hint || (b.returns && offers.backTo)) && !isScreenAction(b) && shown(b, offers))
    .map((b) => ({
      key: keyLabel(b.keys[0], 'hint'),
      label:
        (b.returns && offers.backTo && `back to ${offers.backTo}`) ||
        (b.id === 'open' && offers.enter) ||
        (offers.opens && b.opens?.label) ||
        b.hint!.label,
      priority: (b.returns && offers.backTo ? b.returns.priority : b.hint?.priority) ?? 0,
    }));
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
  const own = keymap.filter((b) => !isScreenAction(b) && shown(b, offers));
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
      const returns = offers.backTo && lead.returns?.help(offers.backTo);
      const text =
        notes[lead.id as ShellAction] ?? (enter || returns || (offers.opens && lead.opens?.help) || lead.help);
      return [keys, text];
    });
}

const SHELL_IDS = new Set(SHELL_BINDINGS.map((b) => b.id));
const isScreenAction = (b: Binding) => !SHELL_IDS.has(b.id);
