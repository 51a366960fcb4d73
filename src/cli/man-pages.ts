/**
 * The man pages, from the command table as --help is (issue 42 §4): appliance-admin(1) for the
 * dashboard and the list of commands, and appliance-admin-GROUP(1) for each top-level command
 * with its subcommands. `npm run build` writes them into dist/man/ (scripts/build.mjs), roff,
 * uncompressed (a package compresses them where its rules say).
 */
import { GROUPS, optionsOf, TABLE, type CommandSpec, type Found, type OptionSpec } from './command-table/index.js';
import { DASHBOARD } from './command-table/dashboard.js';
import { usageLines } from './command-table/help.js';
import { CONFIG_FILE_PATH } from './command-table/shared-options.js';
import { VERSION } from '../contract/version.js';

const PROGRAM = 'appliance-admin';

export interface ManPage {
  /** the file's name in dist/man/: appliance-admin.1, appliance-admin-keys.1 */
  file: string;
  text: string;
}

/**
 * Text as roff reads it: backslashes escaped, a line never starting with a control character,
 * and ASCII only (… as ..., anything else as \[uXXXX]: groff and mandoc read the page whatever
 * the locale and the output device).
 */
const roff = (text: string): string =>
  text
    .replace(/\\/g, '\\e')
    .replace(/…/g, '...')
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join('\n');

/** A command line's words: dashes as minus signs, so that a copied option is typed right. */
const literal = (text: string): string => roff(text).replace(/-/g, '\\-');

const optionHead = (o: OptionSpec): string =>
  `${o.short ? `\\fB\\-${o.short}\\fR, ` : ''}\\fB${literal(`--${o.name}`)}\\fR${o.value ? ` \\fI${literal(o.value)}\\fR` : ''}`;

/**
 * Preformatted table text as man paragraphs: wrapped lines joined (the pager wraps again), a
 * line indented as it was (a table, an example output) kept as it is, a blank line a new paragraph.
 */
function paragraphs(text: string): string[] {
  const out: string[] = [];
  let verbatim = false;
  for (const line of text.split('\n')) {
    const indented = /^\s/.test(line);
    if (indented !== verbatim) {
      out.push(indented ? '.nf' : '.fi');
      verbatim = indented;
    }
    out.push(line.trim() === '' ? '.PP' : roff(indented ? line : line.trim()));
  }
  if (verbatim) out.push('.fi');
  return out;
}

const optionItems = (options: readonly OptionSpec[]): string[] =>
  options.flatMap((o) => [
    '.TP',
    optionHead(o),
    ...paragraphs(o.description.split('\n').join(' ')),
    ...(o.repeatable ? ['May be given more than once.'] : []),
  ]);

function synopsis(lines: readonly string[]): string[] {
  // a line starting with spaces continues the one before (help.ts)
  const joined = lines.reduce<string[]>(
    (acc, l) => (/^\s/.test(l) && acc.length ? [...acc.slice(0, -1), `${acc.at(-1)} ${l.trim()}`] : [...acc, l]),
    [],
  );
  return ['.nf', ...joined.map((l) => `\\fB${PROGRAM}\\fR ${literal(l)}`), '.fi'];
}

const header = (name: string, summary: string, date: string): string[] => [
  `.\\" Made by scripts/build.mjs from the command table (src/cli/command-table/): edit that, not this.`,
  `.TH ${name.toUpperCase()} 1 "${date}" "${PROGRAM} ${VERSION}" "User Commands"`,
  // command and file names are typed as printed: never broken with a hyphen
  '.nh',
  // and lines are not stretched to the margin (a list of page names, long option names)
  '.ad l',
  '.SH NAME',
  `${literal(name)} \\- ${roff(summary)}`,
];

const FILES = [
  '.SH FILES',
  '.TP',
  `\\fI${roff(CONFIG_FILE_PATH.split(' ')[0])}\\fR`,
  `The config file: appliances by name, the default appliance, display settings (appliance\\-admin config init writes a commented one). Used when present; \\fB\\-\\-config\\fR names another.`,
  '.TP',
  '\\fI$XDG_CONFIG_HOME/appliance\\-admin/session.json\\fR',
  'The stored sign\\-in of appliance\\-admin login (mode 0600).',
  '.TP',
  '\\fI$XDG_STATE_HOME/appliance\\-admin/\\fR',
  'The audit checkpoints this machine verified, per appliance key, and the forks it found.',
];

const ENVIRONMENT = [
  '.SH ENVIRONMENT',
  '.TP',
  '\\fBAPPLIANCE_ADMIN_TOKEN\\fR',
  'The bearer token, when no \\fB\\-\\-token\\-file\\fR is given (a token is never an option).',
  '.TP',
  '\\fBXDG_CONFIG_HOME\\fR, \\fBXDG_STATE_HOME\\fR',
  'Where the config file, the sign\\-in and the verified checkpoints are (default ~/.config, ~/.local/state).',
  '.TP',
  '\\fBNO_COLOR\\fR',
  'The dashboard draws without colour.',
];

const seeAlso = (self: string): string[] => [
  '.SH SEE ALSO',
  [PROGRAM, ...GROUPS.map((g) => `${PROGRAM}-${g.name}`)]
    .filter((n) => n !== self)
    .map((n) => `\\fB${literal(n)}\\fR(1)`)
    .join(',\n'),
];

function examples(specs: readonly CommandSpec[]): string[] {
  const all = specs.flatMap((s) => s.examples ?? []);
  if (!all.length) return [];
  return ['.SH EXAMPLES', ...all.flatMap((e) => ['.TP', `\\fB${PROGRAM} ${literal(e.command)}\\fR`, roff(e.says)])];
}

/** A command and every subcommand below it, each with the commands above it. */
function walk(found: Found): Found[] {
  const subs = (found.spec.subcommands ?? []).filter((s) => !s.hidden);
  return [
    found,
    ...subs.flatMap((s) => walk({ spec: s, parents: [...found.parents, found.spec], path: [...found.path, s.name] })),
  ];
}

/** appliance-admin-GROUP(1): the command, its subcommands, each one's options. */
function groupPage(group: CommandSpec, date: string): ManPage {
  const name = `${PROGRAM}-${group.name}`;
  const all = walk({ spec: group, parents: [TABLE], path: [group.name] });
  const [top, ...subs] = all;
  const lines = [...header(name, group.summary, date), '.SH SYNOPSIS', ...synopsis(usageLines(group))];
  lines.push('.SH DESCRIPTION', ...paragraphs(group.description ?? group.summary));
  for (const sub of subs) {
    lines.push(`.SS "${literal(sub.path.join(' '))}"`, ...paragraphs(sub.spec.description ?? sub.spec.summary));
  }
  lines.push('.SH OPTIONS', ...optionItems(optionsOf(top)));
  lines.push('.TP', '\\fB\\-h\\fR, \\fB\\-\\-help\\fR', "The command's help, from the same table as this page.");
  for (const sub of subs) {
    const its = [...(sub.spec.shared ?? []), ...(sub.spec.options ?? [])];
    if (its.length) lines.push(`.SS "${literal(sub.path.join(' '))}"`, ...optionItems(its));
  }
  const exits = all.filter((f) => f.spec.exitStatus);
  if (exits.length) {
    lines.push('.SH EXIT STATUS');
    for (const f of exits) {
      if (f !== top) lines.push(`.SS "${literal(f.path.join(' '))}"`);
      lines.push(...paragraphs(f.spec.exitStatus!));
    }
  }
  const notes = all.flatMap((f) => (f.spec.notes ? paragraphs(f.spec.notes) : []));
  if (notes.length) lines.push('.SH NOTES', ...notes);
  lines.push(...examples(all.map((f) => f.spec)), ...FILES, ...seeAlso(name));
  return { file: `${name}.1`, text: `${lines.join('\n')}\n` };
}

/** appliance-admin(1): the dashboard, its demo, and the list of commands with their pages. */
function mainPage(date: string): ManPage {
  const root: Found = { spec: DASHBOARD, parents: [], path: [] };
  const demo = walk(root).slice(1);
  const lines = [
    ...header(PROGRAM, TABLE.summary, date),
    '.SH SYNOPSIS',
    ...synopsis([...usageLines(DASHBOARD), 'COMMAND [OPTIONS]']),
    '.SH DESCRIPTION',
    ...paragraphs(DASHBOARD.description ?? ''),
    '.PP',
    'Each command has its own page, and \\fB\\-\\-help\\fR:',
    '.SH COMMANDS',
    ...GROUPS.flatMap((g) => [
      '.TP',
      `\\fB${literal(g.name)}\\fR`,
      `${roff(g.summary)} (\\fB${literal(`${PROGRAM}-${g.name}`)}\\fR(1))`,
    ]),
    '.SH OPTIONS',
    ...optionItems(optionsOf(root)),
    '.TP',
    '\\fB\\-h\\fR, \\fB\\-\\-help\\fR',
    "The dashboard's help; \\fBappliance\\-admin \\-\\-help\\fR alone lists every command.",
    '.TP',
    '\\fB\\-V\\fR, \\fB\\-\\-version\\fR',
    'The version.',
  ];
  for (const d of demo) {
    const listed = new Set(optionsOf(root).map((o) => o.name));
    lines.push(`.SS "${literal(d.path.join(' '))}"`, ...paragraphs(d.spec.summary));
    lines.push(...optionItems((d.spec.options ?? []).filter((o) => !listed.has(o.name))));
  }
  if (DASHBOARD.notes) lines.push('.SH NOTES', ...paragraphs(DASHBOARD.notes));
  lines.push(...examples([DASHBOARD, ...demo.map((d) => d.spec)]), ...ENVIRONMENT, ...FILES, ...seeAlso(PROGRAM));
  return { file: `${PROGRAM}.1`, text: `${lines.join('\n')}\n` };
}

/** Every page; `date` is the pages' date (YYYY-MM-DD: the build's SOURCE_DATE_EPOCH, else today). */
export function manPages(date: string): ManPage[] {
  return [mainPage(date), ...GROUPS.map((g) => groupPage(g, date))];
}
