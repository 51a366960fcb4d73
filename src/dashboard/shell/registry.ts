import type { AnyScreen } from '../kit/screen-api.js';
import { MUTATION_ACTIONS } from '../../contract/route-meta.js';
import { resolveKeymap, screenActionId, screenBindings, SHELL_BINDINGS } from './keymap.js';

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
      if ([...a.key].length !== 1) throw new Error(`screen ${s.name}: action key ${a.key} must be one character`);
      // the label names the action in the keymap (screenActionId)
      const id = screenActionId(s, a.label);
      if (labels.has(id)) throw new Error(`screen ${s.name}: two actions are labelled ${a.label}`);
      labels.add(id);
    }
    if (s.enter !== undefined && !(s.actions ?? []).some((a) => a.label === s.enter))
      throw new Error(`screen ${s.name}: Enter runs ${s.enter}, which is none of its actions`);
    const shellIds = new Set(SHELL_BINDINGS.map((b) => b.id));
    for (const c of resolveKeymap([...SHELL_BINDINGS, ...screenBindings(s)]).conflicts) {
      const shell = c.ids.find((id) => shellIds.has(id));
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
