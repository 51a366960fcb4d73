import { describe, expect, it } from 'vitest';
import { screens } from '../../screens/index.js';
import { INTENTS, SHELL_ACTIONS, type Intent } from '../../src/config/key-bindings.js';
import { keyOverridesOf } from '../../src/config/key-names.js';
import type { ScreenAction } from '../../src/dashboard/kit/screen-api.js';
import {
  SHELL_KEYMAP,
  bindingFor,
  keymapOf,
  resolveKeymap,
  screenBindings,
  type ShellHandlers,
} from '../../src/dashboard/shell/keymap.js';
import { validateScreens } from '../../src/dashboard/shell/registry.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const keys = screens.find((s) => s.name === 'keys')!;
const budgets = screens.find((s) => s.name === 'budgets')!;
const noop = async () => {};

/** Every screen action that declares an intent, with the keys it has on its screen. */
const intentBindings = (overrides = {}) =>
  screens.flatMap((s) =>
    keymapOf(s, overrides).flatMap((b) =>
      'intent' in b && b.intent ? [{ screen: s.name, intent: b.intent, keys: b.keys }] : [],
    ),
  );

describe('intents: one key for one meaning on every screen', () => {
  it('each intent has its table key on every screen that offers it, and the listed clashes are gone', () => {
    const found = intentBindings();
    for (const b of found) expect(b.keys, `${b.screen} ${b.intent}`).toEqual([...INTENTS[b.intent].keys]);
    // the intents the screens share, on more than one screen each
    const on = (i: Intent) => found.filter((b) => b.intent === i).map((b) => b.screen);
    expect(on('new')).toEqual(['keys', 'budgets']);
    expect(on('edit')).toEqual(['routing', 'budgets']);
    expect(on('remove')).toEqual(['keys', 'budgets']);
    expect(on('export')).toEqual(['audit', 'journal']);
    expect(on('next-page')).toEqual(['audit', 'journal']);
    expect(on('history')).toEqual(['connectors', 'channels', 'keys', 'models', 'routing', 'budgets', 'log']);
  });

  it("no screen's own action takes an intent's key, and a key means one thing among the intents", () => {
    const intentKeys = new Map<string, string>(
      Object.entries(INTENTS).flatMap(([i, spec]) => spec.keys.map((k): [string, string] => [k, i])),
    );
    expect(intentKeys.size).toBe(Object.values(INTENTS).flatMap((s) => s.keys).length);
    for (const s of screens)
      for (const a of s.actions ?? [])
        if (a.intent === undefined) expect(intentKeys.get(a.key), `${s.name} ${a.label} ${a.key}`).toBeUndefined();
    // an intent and a shell action are never named alike: a config file's `keys:` names either
    for (const i of Object.keys(INTENTS)) expect(SHELL_ACTIONS).not.toContain(i);
  });

  it('the registry refuses an own key that is an intent’s, and an intent that does not exist', () => {
    const own: ScreenAction = { key: 'n', label: 'nudge', mutates: false, run: noop };
    expect(() => validateScreens([{ ...keys, actions: [own] }])).toThrow(
      /key n is the new intent's on every screen: nudge declares intent: 'new'/,
    );
    const unknown = { intent: 'create', label: 'create', mutates: false, run: noop } as unknown as ScreenAction;
    expect(() => validateScreens([{ ...keys, actions: [unknown] }])).toThrow(/no intent create/);
  });

  it('a rebound intent moves on every screen at once; a screen action rebound by its own id wins there', () => {
    const plus = keyOverridesOf({ new: '+' });
    for (const b of intentBindings(plus).filter((x) => x.intent === 'new')) expect(b.keys).toEqual(['+']);
    expect(bindingFor(keymapOf(keys, plus), '+', 'normal')?.id).toBe('keys.new-key');
    expect(bindingFor(keymapOf(budgets, plus), '+', 'normal')?.id).toBe('budgets.add');
    expect(bindingFor(keymapOf(keys, plus), 'n', 'normal')).toBeUndefined();

    const both = keyOverridesOf({ new: '+', 'keys.new-key': 'N' });
    expect(bindingFor(keymapOf(keys, both), 'N', 'normal')?.id).toBe('keys.new-key');
    expect(bindingFor(keymapOf(budgets, both), '+', 'normal')?.id).toBe('budgets.add');
    // a rebinding onto a key the screen uses is a conflict, as for any action
    expect(resolveKeymap([...SHELL_KEYMAP, ...screenBindings(keys)], { new: ['x'] }).conflicts[0]?.ids).toEqual([
      'keys.new-key',
      'keys.revoke',
    ]);
  });

  it('types: an unknown intent, an action with both a key and an intent, or a shell action without a handler fail tsc', () => {
    // @ts-expect-error 'create' is no intent (src/config/key-bindings.ts INTENTS)
    const unknown: ScreenAction = { intent: 'create', label: 'create', mutates: false, run: noop };
    // @ts-expect-error an action has a key of its own or an intent's, not both
    const both: ScreenAction = { key: 'N', intent: 'new', label: 'new', mutates: false, run: noop };
    const handlers = Object.fromEntries(SHELL_ACTIONS.map((id) => [id, () => {}])) as ShellHandlers;
    const { quit: _quit, ...rest } = handlers;
    // @ts-expect-error quit has no handler: a binding without one fails to compile
    const missing: ShellHandlers = rest;
    expect([unknown, both, missing].length).toBe(3);
  });
});

const suite = setupScreenSuite({
  setup: async (s) => {
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'hinted-key' } })).status).toBe(201);
  },
});

describe('a disabled action says why, from a value', () => {
  it('for an auditor: the hints, the help and the key itself give the role reason; nothing else is prefixed', async () => {
    const d = suite.render({ role: 'auditor', screen: 'keys', columns: 160 });
    const f = await d.waitForText('(✕ role auditor is read-only) │');
    const hints = f.split('\n').find((l) => l.includes('? help'))!;
    expect(hints).toMatch(/n new key ✕ {2}u set quota ✕ {2}R rotate ✕ {2}E set expiry ✕ {2}x revoke ✕/);
    expect(hints).not.toContain('disabled:');
    await d.press('?');
    const help = await d.waitForText('Actions on this screen (keys)');
    expect(help).toMatch(/n +new key \(changes the appliance\) — ✕ role auditor is read-only/);
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Help · Esc'), 'help closed');
    await d.press('n');
    await d.waitForText('new key: disabled: role auditor is read-only. Nothing was sent.');
  });

  it('an action that needs a row says so without the role prefix', async () => {
    const d = suite.render({ role: 'it_admin', screen: 'budgets', columns: 160 });
    await d.waitForText('(defaults)');
    await d.press('/');
    await d.type('no-such-agent-at-all');
    await d.press('enter');
    await d.waitForText('select a row first');
    await d.press('x');
    await d.waitForText('remove: select a row first.');
  });
});
