/**
 * The dashboard's keys as data: the shell's own actions and the named intents screens share, each
 * with its default keys and words. The shell resolves keys, hints and help from this table
 * (src/dashboard/shell/keymap.ts, key-help.ts); the config schema checks a file's `keys:` against
 * it without loading the dashboard. A config file rebinds a shell action or an intent by its name,
 * or one screen's action as `<screen>.<label>`.
 */

/**
 * A key as the keymap names it: one printable character ('q', 'G', '/'), or a named key
 * ('return', 'shift-tab', 'ctrl-c', 'pagedown').
 */
export type KeyName = string;

/**
 * Where a binding applies: the screen itself (normal), the detail view of a row, the `?` help,
 * and a window too small to draw the dashboard in.
 */
export type KeyContext = 'normal' | 'detail' | 'help' | 'too-small';

/** One shell action's entry in the table. */
export interface ShellBindingSpec {
  /** the keys that run it, the first one shown in the hints; none: unbound */
  readonly keys: readonly KeyName[];
  /** its word on the hint line, and how long it stays there when the line is short (higher: longer) */
  readonly hint: { readonly label: string; readonly priority: number } | null;
  /** what it does, for the `?` help */
  readonly help: string;
  /** listed on the help line of that action (↑ with ↓), which says what both do */
  readonly helpWith?: string;
  /** where the key does it */
  readonly in: readonly KeyContext[];
  /** what the screen must offer for the binding to be shown: `/` filters only some, s S sort lists */
  readonly needs?: 'filter' | 'list';
  /** its word and help on a screen whose rows open another screen (the overview) */
  readonly opens?: { readonly label: string; readonly help: string };
  /** its word on the hint line of an open detail view, where the key does something else there */
  readonly inDetail?: { readonly label: string };
  /**
   * on a screen a link opened: its hint (only there) and help line, `{screen}` naming the screen it
   * returns to; `short`, its word on a short line. `filtered`: its hint there while a `/` filter is
   * set, which the key clears before it goes back (the innermost state first, as k9s and lazygit)
   */
  readonly returns?: {
    readonly priority: number;
    readonly help: string;
    readonly short?: string;
    readonly filtered?: { readonly label: string; readonly short?: string };
  };
}

const VIEW = ['normal', 'detail'] as const;

/**
 * Every key of the shell, in the order of its hints and help: what it does where, its hint and
 * its help line. `Shell.tsx` handles each id (a `Record<ShellAction, …>`: one missing fails tsc).
 */
export const SHELL_BINDINGS = {
  'cursor-up': { keys: ['up', 'k'], hint: null, help: 'move the cursor', in: VIEW },
  'cursor-down': { keys: ['down', 'j'], hint: null, help: 'move the cursor down', helpWith: 'cursor-up', in: VIEW },
  'page-up': { keys: ['pageup'], hint: null, help: 'move a page', in: VIEW },
  'page-down': { keys: ['pagedown'], hint: null, help: 'move a page down', helpWith: 'page-up', in: VIEW },
  first: { keys: ['home', 'g'], hint: null, help: 'first / last row', in: VIEW },
  last: { keys: ['end', 'G'], hint: null, help: 'last row', helpWith: 'first', in: VIEW },
  open: {
    keys: ['return'],
    hint: { label: 'detail', priority: 50 },
    help: 'detail view of the row: every field the server sent',
    in: VIEW,
    opens: { label: 'open', help: "open the screen that shows the row's cause, on that cause" },
    // in the detail view Enter opens nothing more: it closes the detail, as Esc does
    inDetail: { label: 'close' },
  },
  back: {
    keys: ['escape'],
    hint: null,
    help: 'back (closes detail, help, dialogs; clears the filter; else to the screen a link came from)',
    in: ['normal', 'detail', 'help'],
    // the way home after h or Enter opened this screen: kept on an 80-column hint line before the
    // screen's own keys (60), which `?` lists in full
    returns: {
      priority: 62,
      short: 'back',
      help: 'back (closes detail, help, dialogs; clears the filter; else to {screen}, which opened this)',
      filtered: { label: 'clear filter', short: 'clear' },
    },
  },
  'next-screen': { keys: ['tab'], hint: { label: 'next', priority: 15 }, help: 'next / previous screen', in: VIEW },
  'previous-screen': {
    keys: ['shift-tab'],
    hint: null,
    help: 'previous screen',
    helpWith: 'next-screen',
    in: VIEW,
  },
  command: {
    keys: [':'],
    hint: { label: 'screen', priority: 30 },
    help: 'command line: a screen name or a command (Tab completes; the commands are below)',
    in: VIEW,
  },
  filter: {
    keys: ['/'],
    hint: { label: 'filter', priority: 45 },
    help: 'filter the rows (Enter keeps it, Esc clears it)',
    in: ['normal'],
    needs: 'filter',
  },
  'sort-next': {
    keys: ['s'],
    hint: { label: 'sort', priority: 40 },
    help: 'sort the list (its screen says how)',
    in: ['normal'],
    needs: 'list',
  },
  'sort-flip': {
    keys: ['S'],
    hint: null,
    help: 'flip the order of the sorted list',
    helpWith: 'sort-next',
    in: ['normal'],
    needs: 'list',
  },
  refresh: {
    keys: ['r'],
    hint: { label: 'refresh', priority: 35 },
    help: 'refresh now (also skips a reconnect wait; when signed out: sign in again)',
    in: VIEW,
  },
  pause: {
    keys: ['P'],
    hint: null,
    help: 'pause polling (PAUSED in the header; r still refreshes once); again resumes',
    in: VIEW,
  },
  // ? and q stay on the hint line whatever its width: they lead to everything else, and out
  help: { keys: ['?'], hint: { label: 'help', priority: 100 }, help: 'this help', in: ['normal', 'detail', 'help'] },
  quit: {
    keys: ['q', 'ctrl-c'],
    hint: { label: 'quit', priority: 100 },
    help: 'quit (also :q)',
    in: ['normal', 'detail', 'help', 'too-small'],
  },
} as const satisfies Record<string, ShellBindingSpec>;

/** The shell's own actions, by id. */
export type ShellAction = keyof typeof SHELL_BINDINGS;

/** The shell's actions in table order. */
export const SHELL_ACTIONS = Object.keys(SHELL_BINDINGS) as ShellAction[];

/** One intent's entry: its keys on every screen that offers it, and what it means there. */
export interface IntentSpec {
  readonly keys: readonly KeyName[];
  readonly help: string;
}

/**
 * What screens offer under one name, so that a letter means the same on every screen and a config
 * file rebinds it once (`keys: { new: ['+'] }`). A screen's action says `intent: 'new'` instead of
 * a key; its label still says what it does there ('new key', 'add'). No screen's own action may
 * take an intent's key (src/dashboard/shell/registry.ts).
 */
export const INTENTS = {
  new: { keys: ['n'], help: 'create one (a key, an override)' },
  edit: { keys: ['e'], help: 'change the selected one (an override, a route)' },
  remove: { keys: ['x'], help: 'remove or revoke the selected one' },
  export: { keys: ['w'], help: 'write the list to a file (export), as the filters select it' },
  history: { keys: ['h'], help: "the selected row's audit trail (an object's history, a request's entry)" },
  'next-page': { keys: [']'], help: 'the next page (older entries)' },
  'previous-page': { keys: ['['], help: 'the previous page (newer entries)' },
  'first-page': { keys: ['{'], help: 'the first page (the newest entries)' },
  'clear-filter': { keys: ['c'], help: 'every row again: the filters set with f (or the connector chosen) cleared' },
} as const satisfies Record<string, IntentSpec>;

/** The intents' names. */
export type Intent = keyof typeof INTENTS;
