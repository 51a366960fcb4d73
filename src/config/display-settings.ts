import type { DashboardConfig } from './schema.js';

type ScreenPrefs = NonNullable<DashboardConfig['screens']>[string];

/** What the dashboard shows and how, from the config file: passed through to the app (deps.display). */
export interface DisplaySettings {
  /** dark, light or high-contrast; NO_COLOR, when set, turns colour off whatever the theme */
  theme: NonNullable<DashboardConfig['theme']>;
  /** where the export dialog starts (absolute) */
  exportFolder?: string;
  /** `:` aliases: alias -> screen name or command */
  aliases: Record<string, string>;
  /** action id (src/config/schema.ts KEY_ACTIONS) -> its keys; [] unbinds */
  keys: Partial<Record<string, string[]>>;
  /** per screen: the columns shown, in order, and the default sort ("Name desc") */
  screenPrefs: Record<string, ScreenPrefs>;
  /** a new CRIT on the overview while another screen is shown: the bell, an OSC 9 notification, or nothing */
  notify?: NonNullable<DashboardConfig['notify']>;
}

/** The config file's display settings (or none: the defaults). */
export function displaySettings(c: DashboardConfig): DisplaySettings {
  return {
    theme: c.theme ?? 'dark',
    exportFolder: c['export-folder'],
    aliases: c.aliases ?? {},
    keys: Object.fromEntries(
      Object.entries(c.keys ?? {}).map(([action, k]) => [action, typeof k === 'string' ? [k] : k]),
    ),
    screenPrefs: c.screens ?? {},
    notify: c.notify ?? 'off',
  };
}
