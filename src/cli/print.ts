import { sanitize } from '../text/sanitize.js';

/** Long enough for a wrapped error with a URL in it; a line longer than this is junk anyway. */
const MAX_LINE = 2000;

/**
 * Lines for the terminal that may carry outside words (an identity provider's, an appliance's, a
 * file's), each passed through the dashboard's sanitizer so no escape sequence or control
 * character in them reaches the terminal. For a message of ours that has several lines (a usage
 * text); where outside words fill a one-line template, use printOut / printErr, which also turn
 * a line break hidden in them into a space, so they cannot fake a line of their own.
 */
export function terminalText(text: string): string {
  return text
    .split('\n')
    .map((line) => sanitize(line, MAX_LINE))
    .join('\n');
}

export const printOut = (line: string) => process.stdout.write(`${sanitize(line, MAX_LINE)}\n`);
export const printErr = (line: string) => process.stderr.write(`${sanitize(line, MAX_LINE)}\n`);
