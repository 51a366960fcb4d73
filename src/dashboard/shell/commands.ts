import { patchScreen } from '../state/ui.js';
import { sanitize } from '../../text/sanitize.js';
import { intervalText } from '../kit/format.js';
import { sortMark } from '../kit/sort.js';
import { isThemeName, THEME_NAMES, themeStore } from '../kit/theme.js';
import { listColumns } from './column-choice.js';
import { columnsCommand } from './commands-columns.js';
import { say, type Command, type CommandContext } from './command.js';
import { openLink } from './navigate.js';
import { parseRefresh } from './refresh-interval.js';

function sortCommand(ctx: CommandContext, args: string) {
  const { screen } = ctx;
  const headers = listColumns(screen);
  if (typeof headers === 'string') return say(ctx, `${headers}: nothing to sort`, 'warn');
  if (screen.list?.serverOrder) return say(ctx, screen.list.serverOrder.note, 'warn');
  const words = args.split(/\s+/).filter(Boolean);
  if (words.length === 1 && words[0] === 'save') return saveSort(ctx);
  const last = words.at(-1)?.toLowerCase();
  const direction = last === 'asc' || last === 'desc' ? last : null;
  const typed = (direction ? words.slice(0, -1) : words).join(' ');
  if (!typed) return say(ctx, `:sort COLUMN [asc|desc]; the columns: ${headers.join(', ')}`);
  const column = headers.find((h) => h.toLowerCase() === typed.toLowerCase());
  if (!column) return say(ctx, `no column "${sanitize(typed, 40)}" here; the columns: ${headers.join(', ')}`, 'warn');
  const descending = direction === 'desc';
  patchScreen(ctx.deps.ui, screen.name, { sort: { column, descending } });
  say(ctx, `sorted by ${column} ${sortMark(descending)} (${descending ? 'descending' : 'ascending'})`);
}

/** `:sort save`: the list's current order into the config file, as its default (screens.NAME.sort). */
function saveSort(ctx: CommandContext) {
  const { deps, screen } = ctx;
  const sort = deps.ui.getState().screens[screen.name]?.sort;
  if (!sort) return say(ctx, 'the list is in the appliance order: :sort COLUMN first, then :sort save', 'warn');
  const save = deps.settings.saveSort;
  if (!save) return say(ctx, 'no config file to save to: the order stays until you quit', 'warn');
  const text = `${sort.column} ${sort.descending ? 'desc' : 'asc'}`;
  void Promise.resolve()
    .then(() => save(screen.name, text))
    .then(
      () => say(ctx, `the order of ${screen.name} (${text}) saved to the config`),
      (err: unknown) =>
        say(ctx, `could not save the order: ${sanitize(String((err as Error)?.message ?? err), 120)}`, 'warn'),
    );
}

function applianceCommand(ctx: CommandContext, args: string) {
  const { appliances = [], switchAppliance } = ctx.deps.settings;
  const name = args.trim();
  if (appliances.length === 0) return say(ctx, 'no appliances are configured', 'warn');
  if (!name) return say(ctx, `:appliance NAME; the appliances: ${appliances.join(', ')}`);
  if (!appliances.includes(name))
    return say(ctx, `no appliance "${sanitize(name, 40)}"; the appliances: ${appliances.join(', ')}`, 'warn');
  if (!switchAppliance) return say(ctx, 'switching appliances is not available in this dashboard', 'warn');
  // the dashboard starts again on it (src/cli/dashboard.ts)
  void Promise.resolve(switchAppliance(name)).then(ctx.exit, (err: unknown) =>
    say(ctx, `could not switch to ${name}: ${sanitize(String((err as Error)?.message ?? err), 120)}`, 'warn'),
  );
}

/**
 * The `:` commands, in the order the help lists them. Anything else typed after `:` is a screen's
 * name (or the start of one).
 */
const COMMANDS: readonly Command[] = [
  {
    name: 'refresh',
    args: 'INTERVAL',
    help: 'poll every INTERVAL (500ms, 5s, 1m)',
    complete: () => ['1s', '2s', '5s', '10s', '30s', '1m'],
    run(ctx, args) {
      const { poller } = ctx.deps;
      if (!args.trim()) return say(ctx, `refreshing every ${intervalText(poller.refreshMs)}`);
      const ms = parseRefresh(args);
      if (typeof ms === 'string') return say(ctx, ms, 'warn');
      poller.setIntervalMs(ms);
      say(ctx, `refreshing every ${intervalText(ms)}${poller.held ? ' once polling resumes (P)' : ''}`);
    },
  },
  {
    name: 'sort',
    args: 'COLUMN [asc|desc] | save',
    help: 'sort by a column (as s and S do); save keeps it in the config',
    complete: ({ screen }) => {
      const headers = listColumns(screen);
      return typeof headers === 'string' ? [] : [...headers.flatMap((h) => [h, `${h} asc`, `${h} desc`]), 'save'];
    },
    run: sortCommand,
  },
  columnsCommand,
  {
    name: 'theme',
    args: 'NAME',
    help: `colours: ${THEME_NAMES.join(', ')}`,
    complete: () => [...THEME_NAMES],
    run(ctx, args) {
      const name = args.trim();
      if (!isThemeName(name))
        return say(ctx, `no theme "${sanitize(name, 40)}"; the themes: ${THEME_NAMES.join(', ')}`, 'warn');
      themeStore.setState({ name });
      say(ctx, `theme ${name}`);
    },
  },
  {
    name: 'appliance',
    args: 'NAME',
    help: 'switch to an appliance named in the config file',
    complete: ({ deps }) => [...(deps.settings.appliances ?? [])],
    run: applianceCommand,
  },
  {
    name: 'log',
    args: '',
    help: 'the action log: what this dashboard changed, or failed to',
    run(ctx) {
      // the log screen is optional: resolved by name when asked for
      if (openLink(ctx.deps.ui, ctx.deps.screens, { screen: 'log' }, false)) say(ctx, 'no action log', 'warn');
    },
  },
  {
    name: 'help',
    args: '',
    help: 'the keys and the commands (as ?)',
    run: (ctx) => ctx.deps.ui.setState({ mode: 'help' }),
  },
  { name: 'quit', args: '', help: 'quit (also :q)', run: (ctx) => ctx.exit() },
];

const ALIASES: Record<string, string> = { q: 'quit', 'q!': 'quit', '?': 'help' };

/** The `?` help's lines for the commands: `:sort` and "COLUMN [asc|desc]: sort the list…". */
export const commandHelp = (): [name: string, text: string][] =>
  COMMANDS.map((c) => [`:${c.name}`, c.args ? `${c.args}: ${c.help}` : c.help]);

/** Runs what was typed after `:`: a command, else a screen by its name or the start of one. */
export function runCommandLine(ctx: CommandContext, typed: string) {
  const { ui, screens } = ctx.deps;
  ui.setState({ mode: 'normal' });
  // a config file's `:` alias stands for what it names (src/config/display-settings.ts)
  const aliases = ctx.deps.display.aliases;
  const text = Object.hasOwn(aliases, typed.trim()) ? aliases[typed.trim()] : typed.trim();
  if (!text) return;
  const [word] = text.split(/\s/, 1);
  const command = COMMANDS.find((c) => c.name === (ALIASES[word] ?? word));
  if (command) return command.run(ctx, text.slice(word.length).trim());
  const exact = screens.find((s) => s.name === text);
  const prefixed = screens.filter((s) => s.name.startsWith(text));
  const target = exact ?? (prefixed.length === 1 ? prefixed[0] : undefined);
  if (target) return ui.setState({ screen: target.name, detailScroll: 0, flash: null, backTo: [] });
  const could = prefixed.length > 1 ? ` (could be ${prefixed.map((s) => s.name).join(', ')})` : '';
  const commands = COMMANDS.map((c) => c.name).join(' ');
  say(ctx, `no command or screen "${sanitize(text, 40)}"${could}; commands: ${commands}`, 'warn');
}

/**
 * What Tab may complete the command line to: the commands and screens for the first word, then the
 * command's own arguments. A command that takes arguments is offered with its space.
 */
export function commandCandidates(ctx: CommandContext, typed: string): string[] {
  const space = typed.indexOf(' ');
  if (space < 0)
    return [
      ...COMMANDS.map((c) => (c.args ? `${c.name} ` : c.name)),
      ...ctx.deps.screens.map((s) => s.name).filter((n) => !COMMANDS.some((c) => c.name === n)),
      ...Object.keys(ctx.deps.display.aliases),
    ];
  const name = typed.slice(0, space);
  const command = COMMANDS.find((c) => c.name === name);
  return (command?.complete?.(ctx) ?? []).map((arg) => `${name} ${arg}`);
}
