import * as z from 'zod';
import { badRequest } from '../errors.js';
import { decodeCursor, encodeCursor } from '../http/paging.js';

/** A position in (time, seq) order: the last row of the previous page. */
export interface Key {
  t: number;
  s: number;
}

const KeysetCursor = z.strictObject({ t: z.number().int(), s: z.number().int(), f: z.string() });

export const encodeKeysetCursor = (key: Key, fingerprint: string): string =>
  encodeCursor({ t: key.t, s: key.s, f: fingerprint });

/** The key a cursor points at; 400 when it is not ours or was issued for other filters. */
export function decodeKeysetCursor(cursor: string, fingerprint: string): Key {
  const c = decodeCursor(cursor, KeysetCursor);
  if (c.f !== fingerprint) {
    throw badRequest('the cursor belongs to a query with different filters', [
      { name: 'after', reason: 'repeat the filters the cursor was issued for, or start again without after' },
    ]);
  }
  return { t: c.t, s: c.s };
}
