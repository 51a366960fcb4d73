import { readInterval } from '../../config/interval.js';

/** `:refresh`'s argument in ms, read as --refresh reads it, or what is wrong with it. */
export const parseRefresh = (text: string): number | string => readInterval(text, 'the interval');
