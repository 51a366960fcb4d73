import * as z from 'zod';
import { badRequest } from '../errors.js';
import type { Page } from '../../contract/index.js';

/** Cursors are opaque to clients: base64url JSON. */
export const encodeCursor = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

export function decodeCursor<T>(cursor: string, schema: z.ZodType<T>): T {
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw badRequest('invalid cursor', [{ name: 'after', reason: 'not a cursor this server issued' }]);
  }
}

const AfterKey = z.object({ k: z.string() });

/** Pages a small in-memory list (connectors, keys, models…) by a stable key. */
export function pageArray<T>(items: T[], q: { limit: number; after?: string }, keyOf: (item: T) => string): Page<T> {
  let start = 0;
  if (q.after) {
    const { k } = decodeCursor(q.after, AfterKey);
    const i = items.findIndex((it) => keyOf(it) === k);
    if (i < 0)
      throw badRequest('invalid cursor', [{ name: 'after', reason: 'the item it points at no longer exists' }]);
    start = i + 1;
  }
  const data = items.slice(start, start + q.limit);
  const has_more = start + q.limit < items.length;
  return {
    data,
    has_more,
    next_cursor: has_more && data.length ? encodeCursor({ k: keyOf(data[data.length - 1]) }) : null,
  };
}
