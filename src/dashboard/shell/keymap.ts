import type { Key } from 'ink';
import type { AnyScreen, ScreenAction } from '../kit/screen-api.js';
import {
  INTENTS,
  SHELL_ACTIONS,
  SHELL_BINDINGS,
  type Intent,
  type KeyContext,
  type KeyName,
  type ShellAction,
  type ShellBindingSpec,
} from '../../config/key-bindings.js';
import type { KeyOverrides } from '../../config/key-names.js';

export type { KeyContext, KeyName, ShellAction };

/** A screen's action in the keymap: `<screen>.<label>` (`keys.revoke`). */
export type ScreenActionId = `${string}.${string}`;

/** One binding as the shell resolves keys with it: a shell action's, or a screen action's. */
export type Binding = ShellBinding | ScreenBinding;

interface ShellBinding extends Omit<ShellBindingSpec, 'keys'> {
  id: ShellAction;
  keys: KeyName[];
}

interface ScreenBinding extends Omit<ShellBindingSpec, 'keys' | 'hint'> {
  id: ScreenActionId;
  keys: KeyName[];
  hint: { label: string; priority: number; short?: string };
  /** the intent it answers to: rebinding the intent rebinds it, on every screen */
  intent?: Intent;
}

/** What the shell does for each of its actions: one missing (or one too many) fails tsc. */
export type ShellHandlers = Record<ShellAction, () => void>;

/** The shell's bindings, in table order, as the keymap holds them. */
export const SHELL_KEYMAP: readonly Binding[] = SHELL_ACTIONS.map((id) => ({
  ...SHELL_BINDINGS[id],
  id,
  keys: [...SHELL_BINDINGS[id].keys],
}));

const SHELL_IDS: ReadonlySet<string> = new Set(SHELL_ACTIONS);
export const isShellAction = (id: string): id is ShellAction => SHELL_IDS.has(id);

/** A screen's action on the hint line: after ? and q, before the shell's other keys. */
const ACTION_HINT_PRIORITY = 60;
const VIEW: KeyContext[] = ['normal', 'detail'];

/** The keys an action has before any rebinding: its own, or its intent's (src/config/key-bindings.ts). */
export const defaultKeys = (a: ScreenAction): KeyName[] =>
  a.intent === undefined ? [a.key] : [...INTENTS[a.intent].keys];

/** The bindings of a screen's actions; their keys work on the screen and in its detail view. */
export function screenBindings(screen: AnyScreen): ScreenBinding[] {
  return (screen.actions ?? []).map((a) => ({
    id: screenActionId(screen, a.label),
    keys: defaultKeys(a),
    hint: {
      label: a.label,
      priority: a.hintPriority ?? ACTION_HINT_PRIORITY,
      ...(a.hintShort === undefined ? {} : { short: a.hintShort }),
    },
    help: a.label,
    in: VIEW,
    ...(a.intent === undefined ? {} : { intent: a.intent }),
  }));
}

export const screenActionId = (screen: AnyScreen, label: string): ScreenActionId =>
  `${screen.name}.${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

export interface Conflict {
  key: KeyName;
  context: KeyContext;
  /** the bindings the key would run there, in table order */
  ids: string[];
}

/** The keys a binding gets from the rebindings: its own id's first, then its intent's. */
function rebound(b: Binding, overrides: KeyOverrides): KeyName[] | undefined {
  if (Object.hasOwn(overrides, b.id)) return [...overrides[b.id]];
  if ('intent' in b && b.intent !== undefined && Object.hasOwn(overrides, b.intent)) return [...overrides[b.intent]];
  return undefined;
}

/**
 * The table with `overrides` applied (an action id or an intent and its keys instead of the
 * built-in ones; an empty list unbinds it), and every key that would run two actions in one place.
 */
export function resolveKeymap(
  builtin: readonly Binding[],
  overrides: KeyOverrides = {},
): { keymap: Binding[]; conflicts: Conflict[] } {
  const keymap = builtin.map((b): Binding => {
    const keys = rebound(b, overrides);
    return keys ? { ...b, keys } : b;
  });
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

const NO_OVERRIDES: KeyOverrides = {};
const keymaps = new WeakMap<KeyOverrides, WeakMap<AnyScreen, Binding[]>>();

/** The shell's bindings and the screen's, with the operator's rebindings, as the shell uses them on that screen. */
export function keymapOf(screen: AnyScreen, overrides: KeyOverrides = NO_OVERRIDES): Binding[] {
  let byScreen = keymaps.get(overrides);
  if (!byScreen) keymaps.set(overrides, (byScreen = new WeakMap()));
  let keymap = byScreen.get(screen);
  if (!keymap)
    byScreen.set(screen, (keymap = resolveKeymap([...SHELL_KEYMAP, ...screenBindings(screen)], overrides).keymap));
  return keymap;
}

/** The binding of one of the screen's actions, with the operator's rebindings. */
export const actionBinding = (
  screen: AnyScreen,
  action: ScreenAction,
  overrides: KeyOverrides = NO_OVERRIDES,
): Binding | undefined => keymapOf(screen, overrides).find((b) => b.id === screenActionId(screen, action.label));

/** How the operator presses one of the screen's actions now: its first key, as help writes it. */
export function actionKeyLabel(
  screen: AnyScreen,
  action: ScreenAction,
  overrides: KeyOverrides = NO_OVERRIDES,
): string {
  const key = actionBinding(screen, action, overrides)?.keys[0];
  return key === undefined ? `its key (${action.label} is unbound)` : keyLabel(key);
}

/** How the operator presses an intent on the screen now (its first key, as help writes it), or null when unbound. */
export function intentKeyLabel(
  screen: AnyScreen,
  intent: Intent,
  overrides: KeyOverrides = NO_OVERRIDES,
): string | null {
  const key = keymapOf(screen, overrides).find((b) => 'intent' in b && b.intent === intent)?.keys[0];
  return key === undefined ? null : keyLabel(key);
}

/**
 * What is wrong with a set of rebindings on these screens, in words naming both actions of a
 * conflict (`"x" would run both quit and keys.revoke on the keys screen`), or an unknown action.
 */
export function rebindingProblems(screens: readonly AnyScreen[], overrides: KeyOverrides): string[] {
  const known = new Set([
    ...SHELL_ACTIONS,
    ...Object.keys(INTENTS),
    ...screens.flatMap((s) => screenBindings(s).map((b) => b.id)),
  ]);
  const problems = Object.keys(overrides)
    .filter((id) => !known.has(id))
    .map((id) => `no action "${id}"`);
  const seen = new Set<string>();
  for (const screen of screens) {
    for (const c of resolveKeymap([...SHELL_KEYMAP, ...screenBindings(screen)], overrides).conflicts) {
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
