import type { AnyScreen } from '../kit/screen-api.js';
import { MUTATION_ACTIONS } from '../../contract/route-meta.js';
import { INTENTS, type Intent } from '../../config/key-bindings.js';
import { isShellAction, resolveKeymap, screenActionId, screenBindings, SHELL_KEYMAP } from './keymap.js';

/** The intents by their default keys: a screen's own action may not take one (it means that intent everywhere). */
const INTENT_OF_KEY = new Map<string, Intent>(
  Object.entries(INTENTS).flatMap(([intent, spec]) => spec.keys.map((k) => [k, intent as Intent] as const)),
);

/** Fails fast on a screen list that would confuse the shell (run at start-up and in tests). */
export function validateScreens(screens: AnyScreen[]): void {
  if (screens.length === 0) throw new Error('no screens registered');
  const names = new Set<string>();
  for (const s of screens) {
    if (!/^[a-z][a-z0-9-]*$/.test(s.name))
      throw new Error(`screen name ${s.name} must be lower-case letters, digits, -`);
    if (names.has(s.name)) throw new Error(`two screens are named ${s.name}`);
    names.add(s.name);
    if (!s.list && !s.render) throw new Error(`screen ${s.name} needs a list or a render function`);
    const labels = new Set<string>();
    for (const a of s.actions ?? []) {
      if (a.intent !== undefined) {
        if (!Object.hasOwn(INTENTS, a.intent))
          throw new Error(`screen ${s.name}: action ${a.label}: no intent ${a.intent}`);
      } else {
        if ([...a.key].length !== 1) throw new Error(`screen ${s.name}: action key ${a.key} must be one character`);
        const intent = INTENT_OF_KEY.get(a.key);
        if (intent)
          throw new Error(
            `screen ${s.name}: key ${a.key} is the ${intent} intent's on every screen: ${a.label} declares intent: '${intent}' or takes another key`,
          );
      }
      // the label names the action in the keymap (screenActionId)
      const id = screenActionId(s, a.label);
      if (labels.has(id)) throw new Error(`screen ${s.name}: two actions are labelled ${a.label}`);
      labels.add(id);
    }
    if (s.enter !== undefined && !(s.actions ?? []).some((a) => a.label === s.enter))
      throw new Error(`screen ${s.name}: Enter runs ${s.enter}, which is none of its actions`);
    for (const c of resolveKeymap([...SHELL_KEYMAP, ...screenBindings(s)]).conflicts) {
      const shell = c.ids.find(isShellAction);
      throw new Error(
        shell
          ? `screen ${s.name}: key ${c.key} is reserved by the shell (${shell})`
          : `screen ${s.name}: key ${c.key} used twice (${c.ids.join(', ')})`,
      );
    }
    for (const a of s.actions ?? []) {
      if (a.mutates && a.capability && !MUTATION_ACTIONS.includes(a.capability)) {
        throw new Error(`screen ${s.name}: action ${a.label} names unknown capability ${a.capability}`);
      }
    }
  }
}
