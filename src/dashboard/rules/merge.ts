import type { ActionContext } from '../kit/screen-api.js';

/**
 * Saving a form onto a document someone else may have changed since the form opened: only the
 * fields the operator changed are written onto the latest document, and a field both changed
 * (to different values) is shown and asked about, never silently overwritten.
 */

/** A limit-like value: a number, null (unlimited) or undefined (absent: inherits). */
export type Value = number | null | undefined;
export type Values<K extends string> = Partial<Record<K, Value>>;

export interface Conflict<K extends string> {
  field: K;
  label: string;
  /** when the form opened */
  base: Value;
  /** on the appliance now */
  theirs: Value;
  /** what the operator submitted */
  mine: Value;
}

export interface Merge<K extends string> {
  /** the latest values with the operator's changes on top */
  merged: Values<K>;
  /** fields the operator changed */
  changed: K[];
  /** changed fields someone else also changed, to something else */
  conflicts: Conflict<K>[];
  /** true when `merged` is what the appliance has already (nothing to send) */
  same: boolean;
}

/** Three-way merge: `base` is what the form showed, `mine` what was submitted, `theirs` the latest. */
export function mergeValues<K extends string>(
  fields: readonly { name: K; label: string }[],
  base: Values<K>,
  mine: Values<K>,
  theirs: Values<K>,
): Merge<K> {
  const merged: Values<K> = {};
  const changed: K[] = [];
  const conflicts: Conflict<K>[] = [];
  for (const { name, label } of fields) {
    const b = base[name];
    const m = mine[name];
    const t = theirs[name];
    if (m === b) {
      if (t !== undefined) merged[name] = t;
      continue;
    }
    changed.push(name);
    if (t !== b && t !== m) conflicts.push({ field: name, label, base: b, theirs: t, mine: m });
    if (m !== undefined) merged[name] = m;
  }
  const same = fields.every(({ name }) => merged[name] === theirs[name]);
  return { merged, changed, conflicts, same };
}

/**
 * Asks before writing over someone else's change: theirs vs yours for each conflicting field.
 * True: write the operator's values. `by`: who last changed the document, when the answer says.
 */
export function confirmOverwrite<K extends string>(
  ctx: ActionContext,
  o: { what: string; conflicts: Conflict<K>[]; show: (v: Value) => string; by?: string | null },
): Promise<boolean> {
  const width = Math.max(...o.conflicts.map((c) => c.label.length)) + 2;
  return ctx.confirm({
    title: `${o.what} changed since you opened the form`,
    message: [
      `Someone else${o.by ? ` (last change: ${o.by})` : ''} changed ${o.conflicts.length === 1 ? 'a value' : 'values'} you also changed:`,
      ...o.conflicts.map(
        (c) => `  ${c.label.padEnd(width)}theirs ${o.show(c.theirs)} · yours ${o.show(c.mine)} (was ${o.show(c.base)})`,
      ),
      'Overwrite saves yours (and your other changes); Cancel saves nothing.',
    ],
    confirmLabel: 'Overwrite',
    danger: true,
  });
}
