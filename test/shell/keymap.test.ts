import { describe, expect, it } from 'vitest';
import type { Key } from 'ink';
import {
  SHELL_KEYMAP as SHELL_BINDINGS,
  bindingFor,
  keyName,
  keymapOf,
  resolveKeymap,
  screenBindings,
} from '../../src/dashboard/shell/keymap.js';
import { shellHelp, shellHints } from '../../src/dashboard/shell/key-help.js';
import { validateScreens } from '../../src/dashboard/shell/registry.js';
import { screens } from '../../screens/index.js';

const LIST = { filter: true, list: true, opens: false };
const VIEW = { filter: false, list: false, opens: false };
const keys = screens.find((s) => s.name === 'keys')!;
const noKey = {} as Key;

describe('the keymap table', () => {
  it('has no key that runs two things in one place, with the actions of every screen', () => {
    for (const s of screens) expect(resolveKeymap([...SHELL_BINDINGS, ...screenBindings(s)]).conflicts).toEqual([]);
  });

  it('rebinds and unbinds by action id, and reports a key taken twice', () => {
    const { keymap, conflicts } = resolveKeymap(SHELL_BINDINGS, { help: ['h'], refresh: [] });
    expect(conflicts).toEqual([]);
    expect(bindingFor(keymap, 'h', 'normal')?.id).toBe('help');
    expect(bindingFor(keymap, '?', 'normal')).toBeUndefined();
    expect(bindingFor(keymap, 'r', 'normal')).toBeUndefined();
    expect(shellHints(keymap, LIST).map((h) => `${h.key} ${h.label}`)).toContain('h help');
    expect(shellHints(keymap, LIST).map((h) => h.label)).not.toContain('refresh');
    expect(shellHelp(keymap, LIST).map(([k]) => k)).not.toContain('r');

    const clash = resolveKeymap([...SHELL_BINDINGS, ...screenBindings(keys)], { quit: ['q', 'x'] });
    expect(clash.conflicts).toEqual([
      { key: 'x', context: 'normal', ids: ['quit', 'keys.revoke'] },
      { key: 'x', context: 'detail', ids: ['quit', 'keys.revoke'] },
    ]);
  });

  it('the registry refuses a screen action on a shell key, naming the binding', () => {
    const bad = { ...keys, actions: [{ key: 's', label: 'sneak', mutates: false, run: async () => {} }] };
    expect(() => validateScreens([bad])).toThrow(/key s is reserved by the shell \(sort-next\)/);
  });

  it('names the keys Ink reads as the table does', () => {
    expect(keyName('', { ...noKey, tab: true, shift: true })).toBe('shift-tab');
    expect(keyName('c', { ...noKey, ctrl: true })).toBe('ctrl-c');
    expect(keyName('', { ...noKey, return: true })).toBe('return');
    expect(keyName('G', { ...noKey, shift: true })).toBe('G');
    expect(keyName('x', { ...noKey, meta: true })).toBe('alt-x');
    expect(keyName('x', { ...noKey, ctrl: true })).toBe('ctrl-x');
  });

  it('offers / only where the screen filters and s S only on a list, in hints and help', () => {
    const map = keymapOf(keys);
    expect(shellHints(map, VIEW).map((h) => h.label)).not.toEqual(expect.arrayContaining(['filter']));
    expect(shellHints(map, VIEW).map((h) => h.label)).not.toContain('sort');
    expect(shellHelp(map, VIEW).map(([k]) => k)).not.toContain('s  S');
    const help = new Map(shellHelp(map, LIST, { 'sort-next': 'by time on the server' }));
    expect(help.get('s  S')).toBe('by time on the server');
    expect(help.get('↑ ↓  k j')).toBe('move the cursor');
    expect(help.get('Home End  g G')).toBe('first / last row');
    expect(help.get('Tab  Shift-Tab')).toBe('next / previous screen');
    expect(help.get('q  Ctrl-C')).toContain('quit');
  });

  it('? help and q quit rank above everything else on the hint line', () => {
    const hints = shellHints(keymapOf(keys), LIST);
    const top = Math.max(...hints.map((h) => h.priority));
    expect(hints.filter((h) => h.priority === top).map((h) => `${h.key} ${h.label}`)).toEqual(['? help', 'q quit']);
  });
});
