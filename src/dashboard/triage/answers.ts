/** Reading answers the board cannot trust the shape of: another appliance may answer other shapes, which give no line. */

/** The objects of an array. */
export const objects = <T>(v: unknown): T[] =>
  Array.isArray(v) ? (v.filter((x) => x !== null && typeof x === 'object') as T[]) : [];
/** A list answer's rows: data.data, or a bare array. */
export const list = <T>(v: unknown): T[] =>
  objects<T>(v && typeof v === 'object' && !Array.isArray(v) ? (v as { data?: unknown }).data : v);
/** A finite number, else 0. */
export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
