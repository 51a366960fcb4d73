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

export type AuditEntryLike = Record<string, unknown> & { [OTHER_READINGS]?: () => Record<string, unknown>[] };

/** An entry, a line that is none, or a batch of them (readers batch to spare a turn per entry). */
export type TrailItem = AuditEntryLike | Unreadable;
