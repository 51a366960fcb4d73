/** What a reader yields for a line or record that is not an entry at all. */
export class Unreadable {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {}
}

/**
 * Where a format cannot tell two values apart (CSV: an empty cell is null or '', a leading `'`
 * guards a formula or is the text's own), the reader attaches the other readings of the entry
 * under this key (not enumerable, so not hashed); the verifier tries them when the first fails.
 */
export const OTHER_READINGS = Symbol('other readings');

/**
 * A JSON Lines line whose own bytes hashed to its stated hash (read-trail.ts): the verifier does
 * not hash it again.
 */
export const HASHED_AS_READ = Symbol('hashed as read');

/**
 * Why an entry read from a file is not its canonical form even though its contents hash right (a
 * JSON Lines line another tool re-encoded, a duplicate key; a CSV cell whose formula guard was
 * removed): only the canonical line or record verifies (docs/audit-chain.md).
 */
export const NOT_CANONICAL = Symbol('not canonical');

export type AuditEntryLike = Record<string, unknown> & {
  [OTHER_READINGS]?: () => Record<string, unknown>[];
  [HASHED_AS_READ]?: true;
  /** given a reading that hashes right, why the record is not that reading's canonical form, or null */
  [NOT_CANONICAL]?: (reading: Record<string, unknown>) => string | null;
};

/** An entry, a line that is none, or a batch of them (readers batch to spare a turn per entry). */
export type TrailItem = AuditEntryLike | Unreadable;

/**
 * The longest line (or CSV record) a reader takes: entries are a few hundred bytes, and the API
 * refuses bodies over 64 KiB. A longer line is reported and skipped, never held in memory whole.
 */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
