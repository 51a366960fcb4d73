import type { KeyName } from './key-bindings.js';

/** Rebindings by action id or intent (a config file's `keys:`); an empty list unbinds. */
export type KeyOverrides = Readonly<Record<string, KeyName[]>>;

/** The config file's names for keys (`enter`, `pgdn`, `ctrl+c`), as the keymap names them. */
const NAMED: Record<string, KeyName> = {
  enter: 'return',
  esc: 'escape',
  pgup: 'pageup',
  pgdn: 'pagedown',
  space: ' ',
};

/**
 * A key as written in config.yaml (src/config/schema.ts), as the keymap names it: `ctrl+x`
 * is `ctrl-x`, `alt+f` is `alt-f`, `shift+tab` is `shift-tab`, `shift+a` is `A`.
 */
function keyFromConfig(written: string): KeyName {
  // the modifiers, then the key itself, which may be '+' (`+`, `ctrl++`)
  const [, prefix, base] = /^((?:(?:ctrl|alt|shift)\+)*)(.+)$/i.exec(written) ?? [written, '', written];
  const mods = new Set(prefix.toLowerCase().split('+').filter(Boolean));
  const named = NAMED[base.toLowerCase()] ?? (base.length === 1 ? base : base.toLowerCase());
  if (mods.has('ctrl')) return `ctrl-${named.toLowerCase()}`;
  if (mods.has('alt')) return `alt-${named}`;
  if (mods.has('shift')) return named === 'tab' ? 'shift-tab' : named.length === 1 ? named.toUpperCase() : named;
  return named;
}

/** A config file's `keys:` (action -> key or keys) as the keymap's rebindings. */
export function keyOverridesOf(keys: Readonly<Record<string, string | string[] | undefined>>): KeyOverrides {
  return Object.fromEntries(
    Object.entries(keys).map(([id, k]) => [id, (typeof k === 'string' ? [k] : (k ?? [])).map(keyFromConfig)]),
  );
}
