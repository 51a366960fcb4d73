import type { AnyScreen } from '../kit/screen-api.js';
import type { SortState } from '../kit/screen-state.js';
import type { DisplaySettings } from '../../config/display-settings.js';

/**
 * The config file's `screens:` applied: a list shows the columns it names, in its order. The
 * names were checked against the screens when the file was read (load.ts).
 */
export function withChosenColumns(screens: AnyScreen[], prefs: DisplaySettings['screenPrefs']): AnyScreen[] {
  return screens.map((screen) => {
    const chosen = prefs[screen.name]?.columns;
    if (!chosen || !screen.list) return screen;
    const columns = chosen.flatMap((header) => screen.list!.columns.filter((c) => c.header === header));
    return { ...screen, list: { ...screen.list, columns } };
  });
}

/** Each screen's default order from `sort: "Name desc"`, as its state starts. */
export function defaultSorts(prefs: DisplaySettings['screenPrefs']): [string, SortState][] {
  return Object.entries(prefs).flatMap(([name, p]) => {
    if (!p.sort) return [];
    const m = /^(.*?)\s+(asc|desc)$/.exec(p.sort);
    return [[name, m ? { column: m[1], descending: m[2] === 'desc' } : { column: p.sort, descending: false }]];
  });
}
