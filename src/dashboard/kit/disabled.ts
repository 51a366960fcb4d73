/**
 * Why an action's key does nothing now, as a value: what kind of reason (the session's role, a
 * read-only session, no row selected, the row itself, another action still running) and its words.
 * The hints, the help and the screen reader read `reason`; pressing the key says it.
 */
export interface Disabled {
  kind: 'role' | 'read-only' | 'signed-out' | 'no-selection' | 'unavailable' | 'busy';
  reason: string;
  /** its words on a short hint line, where `reason` would be cut to nothing ("role au…") */
  short?: string;
}

/** The session refuses it (role, read-only, signed out): its key explains that it is disabled, and sends nothing. */
export const bySession = (d: Disabled): boolean =>
  d.kind === 'role' || d.kind === 'read-only' || d.kind === 'signed-out';

export const sameDisabled = (a: Disabled | null, b: Disabled | null): boolean =>
  a === b || (a !== null && b !== null && a.kind === b.kind && a.reason === b.reason && a.short === b.short);
