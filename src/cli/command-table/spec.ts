/**
 * The shape of the command table: what every command, subcommand and option is, said once, so that
 * --help, the completions and the man pages are made from the same words (src/cli/command-table/).
 */

/** What completes an option's value or an argument: shells offer these. */
export type Completes =
  /** a fixed list */
  | { choices: readonly string[] }
  /** the dashboard's screens (screens/index.ts), by name */
  | 'screens'
  /** the appliances named in the config file, read when completing */
  | 'appliances'
  | 'files'
  | 'dirs'
  /** anything: a number, a time, a URL; the shell offers nothing */
  | 'none';

export interface OptionSpec {
  /** the long name without dashes: 'token-file' */
  name: string;
  /** the one-letter alias without its dash: 'o' */
  short?: string;
  /** the value's name as help shows it ('FILE'); none: a flag */
  value?: string;
  /** preformatted lines (help keeps them; a man page joins them) */
  description: string;
  /** what completes the value (options with a value only; default 'none') */
  completes?: Completes;
  /** may be given again (each adds one) */
  repeatable?: boolean;
}

interface ArgumentSpec {
  /** as usage lines write it: SCREEN, KEY, FILE */
  name: string;
  completes: Completes;
}

interface ExampleSpec {
  /** the words after appliance-admin */
  command: string;
  says: string;
}

export interface CommandSpec {
  /** the word that names it on the command line ('' for the dashboard itself) */
  name: string;
  /** one line: the top-level help's and the man page's NAME */
  summary: string;
  /** the usage lines, each without the leading `appliance-admin ` */
  usage: readonly string[];
  /** the top-level help's one usage line (default: the first of usage) */
  brief?: string;
  /** preformatted prose after the usage lines */
  description?: string;
  /** the positional arguments it takes, in order */
  arguments?: readonly ArgumentSpec[];
  /** the options of the command itself */
  options?: readonly OptionSpec[];
  /** options that every subcommand takes too (the connection, the data directory) */
  shared?: readonly OptionSpec[];
  subcommands?: readonly CommandSpec[];
  /** the exit statuses, preformatted */
  exitStatus?: string;
  /** preformatted text after everything else */
  notes?: string;
  examples?: readonly ExampleSpec[];
  /** left out of the help, the completions and the man pages (__complete) */
  hidden?: boolean;
}

/** A command and the commands above it, outermost first (TABLE first). */
export interface Found {
  spec: CommandSpec;
  parents: readonly CommandSpec[];
  /** the words that named it */
  path: readonly string[];
}

/** What a command takes: the options shared by the command above it, then its own. */
export const optionsOf = ({ spec, parents }: Found): readonly OptionSpec[] => [
  ...(parents.at(-1)?.shared ?? []),
  ...(spec.shared ?? []),
  ...(spec.options ?? []),
];
