/**
 * --help from the command table: each command's page, and the top level's list of commands.
 * Without index.ts: the dashboard's bundle prints its own page with this and dashboard.ts alone.
 */
import { optionsOf, type CommandSpec, type Found, type OptionSpec } from './spec.js';

const PROGRAM = 'appliance-admin';
/** where an option's description starts, as the pages have always aligned it */
const LABEL_WIDTH = 19;

/** `-o, --output FILE`, `--json` */
const optionLabel = (o: OptionSpec): string =>
  `${o.short ? `-${o.short}, ` : ''}--${o.name}${o.value ? ` ${o.value}` : ''}`;

/** A label and its preformatted description, the description's lines aligned after the label. */
function labelled(indent: number, label: string, text: string): string[] {
  const width = LABEL_WIDTH + 2 - indent;
  const lines = text.split('\n').map((l) => ' '.repeat(LABEL_WIDTH + 2) + l);
  // a label too long for its column has its description on the lines below it
  if (label.length >= width) return [`${' '.repeat(indent)}${label}`, ...lines];
  return [`${' '.repeat(indent)}${label.padEnd(width)}${lines[0].trimStart()}`, ...lines.slice(1)];
}

/** A command's usage lines and those of its subcommands, as written in the table. */
export function usageLines(spec: CommandSpec): string[] {
  return [...spec.usage, ...(spec.subcommands ?? []).filter((s) => !s.hidden).flatMap(usageLines)];
}

/** Usage lines as help prints them; a line that starts with spaces continues the one before. */
function usageBlock(lines: readonly string[]): string[] {
  return lines.map((line, i) => {
    const lead = i === 0 ? 'Usage: ' : '       ';
    return /^\s/.test(line) ? `${' '.repeat(7 + PROGRAM.length + 1)}${line}` : `${lead}${PROGRAM} ${line}`;
  });
}

/**
 * A command's page: its usage, what it does, its subcommands with their own options, the options
 * it takes, the exit statuses. A command whose subcommands share one parser (keys, token) prints
 * its whole page for each of them, as its own file asks.
 */
export function helpText(found: Found): string {
  const { spec, parents } = found;
  // a subcommand without usage lines of its own (export audit) is written in its command's
  const usage = usageLines(spec).length ? usageLines(spec) : (parents.at(-1)?.usage ?? []);
  const out: string[] = usageBlock(usage);
  if (spec.description) out.push('', ...spec.description.split('\n'));
  const own = optionsOf(found);
  const listed = new Set(own.map((o) => o.name));
  const options = [...(spec.options ?? [])];
  const subs = (spec.subcommands ?? []).filter((s) => !s.hidden);
  const optionsOfSub = (sub: CommandSpec) => [...(sub.shared ?? []), ...(sub.options ?? [])];
  // an option several subcommands take alike (the connection) is said once, after them
  const common = [...new Set(subs.flatMap(optionsOfSub))].filter(
    (o) => !listed.has(o.name) && subs.filter((s) => optionsOfSub(s).includes(o)).length > 1,
  );
  const shared = [...own.filter((o) => !options.includes(o)), ...common];
  const block: string[] = options.flatMap((o) => labelled(2, optionLabel(o), o.description));
  for (const sub of subs) {
    block.push(...labelled(2, sub.name, sub.description ?? sub.summary));
    for (const o of optionsOfSub(sub).filter((o) => !listed.has(o.name) && !common.includes(o)))
      block.push(...labelled(4, optionLabel(o), o.description));
  }
  block.push(...shared.flatMap((o) => labelled(2, optionLabel(o), o.description)));
  if (block.length) out.push(...(spec.description ? [] : ['']), ...block);
  const exit = spec.exitStatus ?? parents.at(-1)?.exitStatus;
  if (exit) out.push('', `Exit status: ${exit}`);
  const notes = spec.notes ?? (parents.length > 1 ? parents.at(-1)?.notes : undefined);
  if (notes) out.push(...(exit ? [] : ['']), ...notes.split('\n'));
  return out.join('\n');
}

/** The top level's lines: the dashboard, then each command (or its subcommands, when it has no brief line of its own). */
function overviewLines(spec: CommandSpec, root = true): [usage: string, summary: string][] {
  if (spec.hidden) return [];
  const own: [string, string][] =
    spec.brief || (spec.usage.length && !spec.subcommands?.some((s) => s.usage.length))
      ? [[spec.brief ?? spec.usage[0], root ? 'the dashboard' : spec.summary]]
      : [];
  const subs = spec.brief && !root ? [] : (spec.subcommands ?? []).flatMap((s) => overviewLines(s, false));
  return [...own, ...subs];
}

/** What `appliance-admin --help` prints. */
export function overviewText(table: CommandSpec): string {
  const lines = overviewLines(table).map(([usage, summary]) => {
    const left = `  ${PROGRAM}${usage ? ` ${usage}` : ''}`;
    if (left.length < 64) return `${left.padEnd(64)}${summary}`;
    // a long usage line: its summary below it, so that no line is much wider than a terminal
    return left.length + 2 + summary.length <= 110 ? `${left}  ${summary}` : `${left}\n${' '.repeat(8)}${summary}`;
  });
  return [
    `${PROGRAM}: ${table.summary}`,
    '',
    ...lines,
    '',
    'Run a command with --help for its options; --version (-V) prints the version.',
  ].join('\n');
}
