/**
 * `completion bash|zsh|fish` prints a shell's completion script (completion-scripts.ts); the
 * script asks `__complete WORD… CURRENT` for the candidates of the command line being typed,
 * which this file finds in the command table, the way cobra's and gh's completions do: one
 * walker for three shells, and appliance names read from the config file as they are now.
 */
import { existsSync, readFileSync } from 'node:fs';
import { UsageError } from '../config/usage-error.js';
import { sanitize } from '../text/sanitize.js';
import {
  commandAt,
  findCommand,
  optionsOf,
  type Completes,
  type Found,
  type OptionSpec,
} from './command-table/index.js';
import { helpText } from './command-table/help.js';
import { SHELLS } from './command-table/completion.js';
import { completionScript } from './completion-scripts.js';
import { configFilePath } from './config-file-path.js';

export interface Candidate {
  value: string;
  description?: string;
}

export interface Candidates {
  values: Candidate[];
  /** the shell completes file or folder names itself */
  paths?: 'files' | 'dirs';
}

/** The command line typed so far, walked through the table: where it is and what it expects next. */
interface Walk {
  found: Found;
  /** arguments given to the command found (not subcommand names) */
  positionals: number;
  /** the option whose value is the current word */
  pending?: OptionSpec;
  /** long names given already */
  given: Set<string>;
  /** --config FILE, where the appliances are read from */
  configFlag?: string;
}

const optionNamed = (options: readonly OptionSpec[], word: string): OptionSpec | undefined =>
  word.startsWith('--')
    ? options.find((o) => o.name === word.slice(2).split('=')[0])
    : options.find((o) => o.short !== undefined && o.short === word[1]);

function walk(words: readonly string[]): Walk {
  const w: Walk = { found: findCommand([]), positionals: 0, given: new Set() };
  let dashes = false;
  for (const word of words) {
    if (w.pending) {
      if (w.pending.name === 'config') w.configFlag = word;
      w.pending = undefined;
      continue;
    }
    if (!dashes && word === '--') {
      dashes = true;
      continue;
    }
    if (!dashes && word.startsWith('-') && word.length > 1) {
      const option = optionNamed(optionsOf(w.found), word);
      if (!option) continue;
      w.given.add(option.name);
      const inline = word.startsWith('--') ? word.includes('=') : word.length > 2;
      if (option.value && !inline) w.pending = option;
      else if (option.name === 'config' && inline) w.configFlag = word.slice(word.indexOf('=') + 1);
      continue;
    }
    const sub = w.positionals === 0 ? w.found.spec.subcommands?.find((s) => s.name === word && !s.hidden) : undefined;
    if (sub) w.found = findCommand([...w.found.path, word]);
    else w.positionals++;
  }
  return w;
}

/** What completes the current word of a command line (`words`: those after appliance-admin, the current one last). */
export async function complete(words: readonly string[], env: NodeJS.ProcessEnv): Promise<Candidates> {
  const current = words.at(-1) ?? '';
  const w = walk(words.slice(0, -1));
  if (w.pending) return valuesOf(w.pending.completes, current, '', w, env);
  const options = optionsOf(w.found);
  if (current.startsWith('--') && current.includes('=')) {
    const option = optionNamed(options, current);
    const head = current.slice(0, current.indexOf('=') + 1);
    return option?.value ? valuesOf(option.completes, current.slice(head.length), head, w, env) : { values: [] };
  }
  if (current.startsWith('-')) {
    const offered = [
      ...options.filter((o) => o.repeatable || !w.given.has(o.name)),
      { name: 'help', description: "this command's help" },
    ];
    return {
      values: offered
        .map((o) => ({ value: `--${o.name}`, description: firstLine(o.description) }))
        .filter((c) => c.value.startsWith(current)),
    };
  }
  const subs = w.positionals === 0 ? (w.found.spec.subcommands ?? []).filter((s) => !s.hidden) : [];
  if (subs.length)
    return {
      values: subs.map((s) => ({ value: s.name, description: s.summary })).filter((c) => c.value.startsWith(current)),
    };
  const argument = w.found.spec.arguments?.[w.positionals];
  return argument ? valuesOf(argument.completes, current, '', w, env) : { values: [] };
}

async function valuesOf(
  completes: Completes | undefined,
  current: string,
  head: string,
  w: Walk,
  env: NodeJS.ProcessEnv,
): Promise<Candidates> {
  if (completes === 'files' || completes === 'dirs') return { values: [], paths: completes };
  const names =
    completes === 'screens'
      ? await screenNames()
      : completes === 'appliances'
        ? await applianceNames(w.configFlag, env)
        : typeof completes === 'object'
          ? [...completes.choices]
          : [];
  return { values: names.filter((n) => n.startsWith(current)).map((n) => ({ value: `${head}${n}` })) };
}

/** From dist/screen-names.json when run from dist/ (scripts/build.mjs), else from the screens themselves. */
async function screenNames(): Promise<string[]> {
  try {
    return JSON.parse(readFileSync(new URL('screen-names.json', import.meta.url), 'utf8')) as string[];
  } catch {
    return (await import('./screen-names.js')).screenNames();
  }
}

/**
 * The appliances the config file names: their names only (never a URL, which may carry a user
 * and password, nor anything else of the file). A file the dashboard would refuse gives none.
 */
async function applianceNames(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<string[]> {
  const file = configFilePath(flag, env);
  if (!existsSync(file)) return [];
  try {
    const { loadConfigFile } = await import('../config/load.js');
    return Object.keys(loadConfigFile(file).appliances ?? {});
  } catch {
    return [];
  }
}

const firstLine = (text: string): string => text.split('\n')[0];

/** One line for the shell: no tab, newline or terminal control in what the table or a file says. */
const line = (text: string, max: number): string => sanitize(text, max).replace(/[\t\n\r]/g, ' ');

/**
 * `__complete WORD… CURRENT`: a candidate a line (`VALUE<TAB>DESCRIPTION`), then one line
 * saying what the shell completes itself: `:files`, `:dirs` or `:`.
 */
export async function completeCommand(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const c = await complete(argv.length ? argv : [''], env);
  const out = c.values
    .filter((v) => v.value === line(v.value, 200))
    .map((v) => (v.description ? `${v.value}\t${line(v.description, 120)}` : v.value));
  process.stdout.write(`${[...out, `:${c.paths ?? ''}`].join('\n')}\n`);
  return 0;
}

/** `completion bash|zsh|fish`: the script on stdout. */
export function completionCommand(argv: readonly string[]): number {
  const shell = SHELLS.find((s) => s === argv[0]);
  if (!shell || argv.length !== 1)
    throw new UsageError(
      `${argv[0] === undefined ? 'name a shell' : `no completion for "${sanitize(argv.join(' '), 60)}"`}: ${SHELLS.join(', ')}\n${helpText(commandAt(['completion']))}`,
    );
  process.stdout.write(completionScript(shell));
  return 0;
}
