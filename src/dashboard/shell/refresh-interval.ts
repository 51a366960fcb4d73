import { parseInterval } from '../../cli/dashboard-args.js';

/** `:refresh`'s argument in ms, read as --refresh reads it, or what is wrong with it. */
export function parseRefresh(text: string): number | string {
  try {
    return parseInterval(text);
  } catch (err) {
    return (err as Error).message.replace('--refresh', 'the interval');
  }
}
