import type { ConfigCheck, ConfigFault } from '../../config/load.js';
import type { DashboardConfig } from '../../config/schema.js';
import { sanitize } from '../../text/sanitize.js';
import type { AnyScreen } from '../kit/screen-api.js';
import { keyOverridesOf } from '../../config/key-names.js';
import { rebindingProblems } from './keymap.js';

/**
 * The dashboard's look at a config file (src/config/load.ts reads and parses it): the screens,
 * columns and sorts it names exist, and its key bindings leave every action a key.
 */
export function configCheck(screens: readonly AnyScreen[]): ConfigCheck {
  return (c, fail) => {
    checkNames(c, screens, fail);
    const problem = rebindingProblems(screens, keyOverridesOf(c.keys ?? {}))[0];
    if (problem) throw fail('keys', sanitize(problem, 200));
  };
}

/** Screen names, columns and sorts against the screens. */
function checkNames(c: DashboardConfig, screens: readonly AnyScreen[], fail: ConfigFault): void {
  const names = screens.map((s) => s.name).join(', ');
  const screenNamed = (name: string, where: string) => {
    const screen = screens.find((s) => s.name === name);
    if (!screen) throw fail(where, `no screen "${sanitize(name, 40)}" (the screens are: ${names})`);
    return screen;
  };
  if (c.screen !== undefined) screenNamed(c.screen, 'screen');
  for (const [name, prefs] of Object.entries(c.screens ?? {})) {
    const where = `screens.${sanitize(name, 40)}`;
    const list = screenNamed(name, where).list;
    if (!list) throw fail(where, 'this screen is not a list: it has no columns or sort');
    const headers = list.columns.map((col) => col.header);
    const header = (text: string, at: string) => {
      const found = headers.find((h) => h.toLowerCase() === text.toLowerCase());
      if (!found) throw fail(at, `no column "${sanitize(text, 40)}" (the columns are: ${headers.join(', ')})`);
      return found;
    };
    prefs.columns = prefs.columns?.map((col, i) => header(col, `${where}.columns.${i}`));
    if (prefs.sort === undefined) continue;
    if (list.serverOrder) throw fail(`${where}.sort`, 'this list comes in the appliance order');
    const m = /^(.*?)(?:\s+(asc|desc))?$/i.exec(prefs.sort.trim())!;
    const column = header(m[1], `${where}.sort`);
    if (prefs.columns && !prefs.columns.includes(column))
      throw fail(`${where}.sort`, `"${column}" is not one of the columns shown`);
    prefs.sort = `${column} ${m[2]?.toLowerCase() ?? 'asc'}`;
  }
}
