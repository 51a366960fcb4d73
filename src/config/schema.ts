import * as z from 'zod';
import { INTENTS, SHELL_ACTIONS } from './key-bindings.js';
import { readInterval } from './interval.js';

/**
 * The dashboard's config file (config.yaml), in one schema: strict objects, so that a key it does
 * not know is an error naming its path rather than a setting silently ignored. Keys are spelled as
 * the command line's flags are. scripts/build.mjs publishes it as dist/config.schema.json for
 * editors. Screen and column names are checked against the screens by load.ts (not here: this
 * module stays free of the dashboard's code, so that the build can load it alone).
 */

export const THEMES = ['dark', 'light', 'high-contrast'] as const;

/** How the dashboard tells of a new CRIT on the overview while another screen is shown. */
const NOTICES = ['off', 'bell', 'osc9'] as const;

/**
 * What `keys:` may bind (src/config/key-bindings.ts): the shell's actions, the intents screens share
 * (`new` rebinds every screen's new), and a screen's own as `<screen>.<label>` (`keys.revoke`),
 * checked against the screens by load.ts.
 */
export const KEY_ACTIONS: readonly string[] = [...SHELL_ACTIONS, ...Object.keys(INTENTS)];
const ACTION_ID = new RegExp(`^(?:${KEY_ACTIONS.join('|')}|[a-z][a-z0-9-]*\\.[a-z][a-z0-9 -]*)$`);

const NAMED_KEYS = 'enter|esc|tab|space|backspace|delete|up|down|left|right|pgup|pgdn|home|end';
/** `q`, `?`, `ctrl+c`, `shift+tab`, `alt+f`, `pgdn`: one printable character or a named key, with modifiers. */
const KEY = new RegExp(`^(?:(?:ctrl|alt|shift)\\+)*(?:[!-~]|${NAMED_KEYS})$`);

// a path or an alias is shown in the dashboard: nothing in it may steer the terminal
const NO_CONTROLS = /^[^\p{Cc}\p{Cf}]*$/u;
const path = z
  .string({ error: 'expected a path' })
  .min(1, 'expected a path')
  .regex(NO_CONTROLS, 'expected a path without control characters');
const name = (what: string) =>
  z.string().regex(/^[A-Za-z0-9][\w.-]*$/, `${what} names are letters, digits, '.', '_' and '-'`);
const KEY_WORDS = 'expected a key such as q, ?, ctrl+c or pgdn';
const key = z.string({ error: KEY_WORDS }).regex(KEY, {
  error: `${KEY_WORDS} (a printable character or ${NAMED_KEYS.replaceAll('|', ', ')}, after ctrl+, alt+ or shift+)`,
});

const Appliance = z.strictObject(
  {
    url: z.url({ protocol: /^https?$/, error: 'expected a URL (https://…)' }),
    'token-file': path.optional().describe('a file holding the bearer token, mode 0600 (never the token itself)'),
    'ca-file': path.optional().describe('PEM CA certificate to trust for the appliance TLS'),
    'read-only': z.boolean({ error: 'expected true or false' }).optional().describe('never offer changes'),
    'audit-key': path
      .optional()
      .describe("the appliance's audit public key(s), PEM, obtained out of band: the audit chain is checked with it"),
  },
  { error: 'expected an appliance: url, token-file, ca-file, read-only, audit-key' },
);

const ScreenPrefs = z.strictObject({
  columns: z
    .array(z.string({ error: 'expected a column header' }), { error: 'expected a list of column headers' })
    .min(1, 'expected at least one column')
    .optional()
    .describe('the columns shown, in this order, by their headers'),
  sort: z
    .string({ error: 'expected a column header, then asc or desc' })
    .regex(/^\S.*?(?:\s+(?:asc|desc))?$/i, 'expected a column header, then asc or desc')
    .optional()
    .describe('the default order, e.g. "Name desc"'),
});

export const DashboardConfig = z
  .strictObject({
    'default-appliance': name('appliance').optional().describe('the appliance used without --url or --appliance'),
    appliances: z
      .record(name('appliance'), Appliance, { error: 'expected appliances by name' })
      .optional()
      .describe('appliances by name, for --appliance NAME'),
    screen: z.string({ error: 'expected a screen name' }).optional().describe('the screen to start on'),
    refresh: z
      .union([z.string(), z.number()], { error: 'expected an interval such as 2s, 500ms or 1m' })
      .refine(
        (v) => typeof readInterval(v, 'refresh') === 'number',
        'expected an interval between 200ms and 60m, such as 2s, 500ms or 1m',
      )
      .optional()
      .describe('poll interval'),
    theme: z.enum(THEMES, { error: `expected one of ${THEMES.join(', ')}` }).optional(),
    notify: z
      .enum(NOTICES, { error: `expected one of ${NOTICES.join(', ')}` })
      .optional()
      .describe(
        'a new CRIT on the overview while another screen is shown: off (default), bell (the terminal bell), osc9 (a desktop notification, OSC 9)',
      ),
    'export-folder': path.optional().describe('where the export dialog starts'),
    aliases: z
      .record(
        name('alias'),
        z
          .string({ error: 'expected a screen name or command' })
          .min(1)
          .regex(NO_CONTROLS, 'expected a screen name or command without control characters'),
        {
          error: 'expected aliases by name',
        },
      )
      .optional()
      .describe('`:` aliases: alias -> screen name or command'),
    keys: z
      .record(
        z.string().regex(ACTION_ID, {
          error: `expected an action: ${SHELL_ACTIONS.join(', ')}; an intent: ${Object.keys(INTENTS).join(', ')}; or a screen's as screen.label (keys.revoke)`,
        }),
        z.union([key, z.array(key)]),
        { error: 'expected actions with their keys' },
      )
      .optional()
      .describe('key bindings: action -> key or list of keys ([] unbinds)'),
    screens: z
      .record(z.string(), ScreenPrefs, { error: 'expected screens by name' })
      .optional()
      .describe("each screen's columns and default sort"),
  })
  .describe('appliance-admin dashboard settings (config.yaml)');
export type DashboardConfig = z.infer<typeof DashboardConfig>;
