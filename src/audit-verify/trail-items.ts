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
 * A JSON Lines line that is an entry's canonical text with its `hash` last, whose bytes already hashed to that
 * hash: the reader found it so (read-trail.ts), and the verifier does not hash it again.
 */
export const HASHED_AS_READ = Symbol('hashed as read');

export type AuditEntryLike = Record<string, unknown> & {
  [OTHER_READINGS]?: () => Record<string, unknown>[];
  [HASHED_AS_READ]?: true;
};

/** An entry, a line that is none, or a batch of them (readers batch to spare a turn per entry). */
export type TrailItem = AuditEntryLike | Unreadable;
