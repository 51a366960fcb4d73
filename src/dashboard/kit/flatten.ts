/** Every leaf of a JSON-like value as [key path, text]: a.b.c, list[0].id. */
export function flatten(value: unknown, prefix = ''): [string, string][] {
  if (value === null) return [[prefix || '(value)', 'null']];
  if (Array.isArray(value)) {
    if (value.length === 0) return [[prefix || '(value)', '[]']];
    return value.flatMap((v, i) => flatten(v, `${prefix}[${i}]`));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return [[prefix || '(value)', '{}']];
    return entries.flatMap(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k));
  }
  if (value === undefined) return [[prefix || '(value)', '(none)']];
  return [[prefix || '(value)', String(value)]];
}
