import type { SchemaIssue } from './errors.js';

/** A GET's answer kept with its ETag, to offer in If-None-Match and give back on a 304. */
export interface Remembered {
  etag: string;
  data: unknown;
  issues: SchemaIssue[];
  /** the answer as served, kept only for a route or call that wants it (CallResult.served) */
  served?: unknown;
}

/** How many answers are kept: the oldest used is forgotten first. */
const ETAG_CACHE_MAX = 200;

/**
 * Conditional requests: the last answer to each GET with its ETag. The server's ETag is its
 * answer's hash, so a 304 means the bytes are the same and the kept answer is given back.
 */
export class EtagCache {
  readonly #entries = new Map<string, Remembered>();

  /**
   * The key an answer is kept under: its path, or the stable name of a query whose URL moves
   * (CallInput.revalidateAs: a rolling window), so that one answer is kept per window, not one per URL.
   */
  static keyOf(path: string, revalidateAs: string | undefined): string {
    return revalidateAs === undefined ? path : `as:${revalidateAs}`;
  }

  /** The answer to offer for revalidation, if any: one kept without what was served cannot give it back on a 304. */
  offer(key: string, wantsServed: boolean): Remembered | undefined {
    const remembered = this.#entries.get(key);
    return remembered && (!wantsServed || remembered.served !== undefined) ? remembered : undefined;
  }

  remember(key: string, entry: Remembered) {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > ETAG_CACHE_MAX) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  clear() {
    this.#entries.clear();
  }
}
