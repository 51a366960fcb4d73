import { RESERVED_KEYS, type AnyScreen } from '../ui/screen-api.js';
import { MUTATION_ACTIONS } from '../contract/route-meta.js';

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
    const keys = new Set<string>();
    for (const a of s.actions ?? []) {
      if ([...a.key].length !== 1) throw new Error(`screen ${s.name}: action key ${a.key} must be one character`);
      if ((RESERVED_KEYS as readonly string[]).includes(a.key))
        throw new Error(`screen ${s.name}: key ${a.key} is reserved by the shell`);
      if (keys.has(a.key)) throw new Error(`screen ${s.name}: key ${a.key} used twice`);
      keys.add(a.key);
      if (a.mutates && a.capability && !MUTATION_ACTIONS.includes(a.capability)) {
        throw new Error(`screen ${s.name}: action ${a.label} names unknown capability ${a.capability}`);
      }
    }
  }
}
