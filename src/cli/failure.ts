import { terminalText } from './print.js';

/** Errors whose message tells the operator what to do: printed as they are, exit 1, no stack. */
const OPERATOR_ERRORS = new Set(['DataDirError', 'ConfigError', 'EmbeddedDemoError', 'ChainRefused', 'SqliteMissing']);

/**
 * A command's failure as the CLI reports it: a mistake in the command line exits 2, an operator
 * error 1, each with one line on stderr; anything else is thrown on (a bug: Node prints its
 * stack). Known by name: the dashboard's bundle has its own copies of the classes.
 */
export function reportFailure(err: unknown): number {
  const e = err as Error | undefined;
  if (e?.name === 'UsageError' || (err as NodeJS.ErrnoException)?.code?.startsWith?.('ERR_PARSE_ARGS')) {
    process.stderr.write(`appliance-admin: ${terminalText(e!.message)}\n`);
    return 2;
  }
  if (e && OPERATOR_ERRORS.has(e.name)) {
    // a config file's or SQLite's words may be in it
    process.stderr.write(`appliance-admin: ${terminalText(e.message)}\n`);
    return 1;
  }
  throw err;
}
