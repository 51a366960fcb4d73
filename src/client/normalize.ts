import type { z } from 'zod';
import type { SchemaIssue } from './errors.js';

/**
 * Tolerant reading (api-conventions.md): a real appliance may wrap lists differently, use
 * camelCase, or name a field by a common alias. The contract schema guides the reshaping, so
 * free-form maps (budget agents, audit details, settings values) keep their keys untouched,
 * and fields the schema does not know are kept exactly as sent, for the detail view.
 */

/** Contract name -> other names a server may use for it (after snake-casing). */
const ALIASES: Record<string, string[]> = {
  state: ['status'],
  status: ['state'],
  name: ['display_name', 'label', 'title'],
  rbac_labels: ['labels', 'rbac', 'access_labels'],
  enabled: ['is_enabled'],
  active: ['is_active'],
  last_used_at: ['last_used', 'last_seen_at'],
  created_at: ['created', 'creation_time'],
  updated_at: ['updated', 'modified_at'],
  job_id: ['id'],
  prefix: ['key_prefix'],
  at: ['timestamp', 'time'],
  requests_per_minute: ['rpm', 'rpm_limit'],
  tokens_per_minute: ['tpm', 'tpm_limit'],
  tokens_per_day: ['tpd', 'tpd_limit'],
};

export const toSnake = (key: string): string =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/-/g, '_')
    .toLowerCase();

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDef = { type: string; [k: string]: any };
const defOf = (s: z.ZodType): AnyDef => (s as unknown as { _zod: { def: AnyDef } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema under optional/nullable/default/pipe wrappers, and whether null or absence is allowed. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; nullable: boolean; optional: boolean } {
  let s = schema;
  let nullable = false;
  let optional = false;
  for (let i = 0; i < 20; i++) {
    const d = defOf(s);
    if (d.type === 'nullable') nullable = true;
    if (d.type === 'optional') optional = true;
    if (WRAPPERS.has(d.type)) s = d.innerType;
    else if (d.type === 'pipe') s = d.in;
    else if (d.type === 'lazy') s = d.getter();
    else break;
  }
  return { inner: s, nullable, optional };
}

/** A JSON object: not null, not a list. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function isPageShape(shape: Record<string, z.ZodType>): boolean {
  return 'data' in shape && 'has_more' in shape && defOf(unwrap(shape.data).inner).type === 'array';
}

/** Reshapes `value` towards `schema` without ever throwing; validation comes after. */
function normalize(schema: z.ZodType, value: unknown): unknown {
  const { inner, nullable, optional } = unwrap(schema);
  const d = defOf(inner);
  if (value === undefined) {
    // absent is not null where the contract tells them apart (a budget override inherits)
    if (optional) return undefined;
    if (nullable) return null;
    if (d.type === 'array') return [];
    return undefined;
  }
  if (value === null) return null;
  switch (d.type) {
    case 'object':
      return normalizeObject(d.shape as Record<string, z.ZodType>, value);
    case 'array':
      return Array.isArray(value) ? value.map((v) => normalize(d.element, v)) : value;
    case 'record':
      if (!isPlainObject(value)) return value;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(d.valueType, v)]));
    case 'enum': {
      if (typeof value !== 'string') return value;
      const options = Object.values(d.entries as Record<string, string>);
      if (options.includes(value)) return value;
      const lower = value.toLowerCase();
      return options.includes(lower) ? lower : value;
    }
    case 'string':
      if (d.format === 'datetime') return normalizeTime(value);
      return typeof value === 'number' ? String(value) : value;
    case 'number':
      return typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}

function normalizeTime(value: unknown): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) {
    const at = new Date(value < 1e12 ? value * 1000 : value);
    return Number.isFinite(at.getTime()) ? at.toISOString() : value; // beyond year 275760: left as sent
  }
  if (typeof value === 'string' && !/Z$/.test(value)) {
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return new Date(ms).toISOString();
  }
  return value;
}

/** Whether a snake-cased key names a field of `shape`: its own name, an alias, or a flattened member (last_sync_at). */
function contractNames(shape: Record<string, z.ZodType>): (snakeKey: string) => boolean {
  const known = new Set(Object.keys(shape));
  const aliasSources = new Set(
    Object.entries(ALIASES)
      .filter(([t]) => known.has(t))
      .flatMap(([, s]) => s),
  );
  return (sk) => known.has(sk) || aliasSources.has(sk) || [...known].some((t) => sk.startsWith(`${t}_`));
}

function normalizeObject(shape: Record<string, z.ZodType>, value: unknown): unknown {
  if (isPageShape(shape)) {
    if (Array.isArray(value)) value = { data: value };
    else if (isPlainObject(value) && !('data' in value) && Array.isArray(value.items)) {
      const { items, ...rest } = value;
      value = { ...rest, data: items };
    }
  }
  if (!isPlainObject(value)) return value;

  const known = new Set(Object.keys(shape));
  const useful = contractNames(shape);
  // Snake-case the keys the contract can use; keep every other key exactly as sent.
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const sk = toSnake(k);
    const key = useful(sk) ? sk : k;
    // own keys only: "constructor" or "__proto__" from a server are data, kept as sent
    if (!Object.hasOwn(out, key))
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  for (const target of known) {
    if (target in out) continue;
    const source = (ALIASES[target] ?? []).find((s) => s in out && !known.has(s));
    if (source) {
      out[target] = out[source];
      delete out[source];
      continue;
    }
    // last_sync_at -> last_sync.at: flattened members of a nested object.
    const nested = unwrap(shape[target]).inner;
    if (defOf(nested).type === 'object') {
      const prefix = `${target}_`;
      const members = Object.keys(out).filter((k) => k.startsWith(prefix) && !known.has(k));
      if (members.length) {
        out[target] = Object.fromEntries(members.map((m) => [m.slice(prefix.length), out[m]]));
        for (const m of members) delete out[m];
      }
    }
  }
  if (isPageShape(shape)) {
    if (!('next_cursor' in out)) out.next_cursor = null;
    if (!('has_more' in out)) out.has_more = typeof out.next_cursor === 'string' && out.next_cursor !== '';
  }
  for (const target of known) {
    const v = normalize(shape[target], out[target]);
    if (v === undefined) delete out[target];
    else out[target] = v;
  }
  return out;
}

/**
 * Checks `value` against `schema` without stripping unknown fields: the caller gets the value
 * as normalized (every field kept) plus the contract issues, which the UI shows.
 */
function validateLenient(schema: z.ZodType, value: unknown): { value: unknown; issues: SchemaIssue[] } {
  let r: ReturnType<z.ZodType['safeParse']>;
  try {
    r = schema.safeParse(value);
  } catch (err) {
    // zod spreads a list's issues into one call, which overflows the stack past ~120k of them (a
    // list of that many wrong items): the answer is still read, in the contract's shape (conform)
    if (!(err instanceof RangeError)) throw err;
    return { value, issues: [{ path: '(root)', message: 'too many differences from the contract to list' }] };
  }
  if (r.success) return { value, issues: [] };
  const issues = r.error.issues
    .slice(0, 20)
    .map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
  return { value, issues };
}

/**
 * Where an answer does not fit the contract, gives it the contract's containers: an object where
 * an object belongs, a list where a list belongs (its wrong items as empty objects), text where
 * text belongs (other values as their JSON). Readers then never call a list method on a number
 * or read a field of null. Scalars are not invented: a missing or odd number stays as sent, and
 * fields the contract does not know are kept.
 */
export function conform(schema: z.ZodType, value: unknown): unknown {
  const { inner, nullable, optional } = unwrap(schema);
  const d = defOf(inner);
  const container = d.type === 'object' || d.type === 'array' || d.type === 'record';
  if (value === undefined)
    return container && !optional && !nullable ? conform(schema, d.type === 'array' ? [] : {}) : value;
  if (value === null) return nullable || !container ? null : conform(schema, d.type === 'array' ? [] : {});
  switch (d.type) {
    case 'object': {
      const obj = isPlainObject(value) ? value : {};
      const out: Record<string, unknown> = Object.fromEntries(Object.entries(obj));
      for (const [k, s] of Object.entries(d.shape as Record<string, z.ZodType>)) {
        const v = conform(s, out[k]);
        if (v === undefined) delete out[k];
        else out[k] = v;
      }
      return out;
    }
    case 'array':
      return Array.isArray(value) ? value.map((v) => conform(d.element, v)) : conform(schema, []);
    case 'record':
      return isPlainObject(value)
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, conform(d.valueType, v)]))
        : {};
    case 'string':
    case 'enum':
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
    default:
      return value;
  }
}

/** Normalize, then validate leniently; an answer with issues gets the contract's shape (conform). */
export function readTolerantly(schema: z.ZodType, raw: unknown): { value: unknown; issues: SchemaIssue[] } {
  const { value, issues } = validateLenient(schema, normalize(schema, raw));
  return { value: issues.length ? conform(schema, value) : value, issues };
}

const kindOf = (v: unknown): string =>
  v === undefined
    ? 'an empty answer'
    : v === null
      ? 'null'
      : Array.isArray(v)
        ? 'a JSON array'
        : typeof v === 'object'
          ? 'a JSON object'
          : typeof v === 'string'
            ? 'a JSON string'
            : `a JSON ${typeof v}`;

const valueKind = (v: unknown): string => (v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/** "(its fields: hello, status)": what the object held instead, for the operator to recognise. */
function fieldsOf(v: Record<string, unknown>): string {
  const keys = Object.keys(v);
  if (!keys.length) return ' (it is empty)';
  const shown = keys
    .slice(0, 5)
    .map((k) => JSON.stringify(k.slice(0, 40)))
    .join(', ');
  return ` (its fields: ${shown}${keys.length > 5 ? ', …' : ''})`;
}

/**
 * Why a parsed answer cannot be this API's answer for `schema` at all, or undefined when it may be.
 * Tolerant reading mends an answer that has the contract's envelope with differences inside it;
 * an answer without the envelope would be mended into an empty list or an empty object, which
 * says something false. So:
 * - a paged list (`{data: [], next_cursor, has_more}`) needs its items as a list: a bare JSON
 *   array, or an object whose `data` or `items` (any case) is an array. Missing paging fields are
 *   mended; a missing or non-list `data`/`items`, an empty body or a scalar is not this API.
 * - any other object answer needs a JSON object with at least one field the contract names (by
 *   its name, a known alias, or a flattened member like last_sync_at, in any case). Missing or
 *   odd fields are mended and reported as contract issues; an object sharing no field at all, an
 *   array, a scalar or an empty body is not this API.
 */
export function foreignAnswer(schema: z.ZodType, raw: unknown): string | undefined {
  const inner = unwrap(schema).inner;
  const d = defOf(inner);
  if (d.type !== 'object') return undefined;
  const shape = d.shape as Record<string, z.ZodType>;
  if (isPageShape(shape)) {
    if (Array.isArray(raw)) return undefined;
    if (!isPlainObject(raw)) return `${kindOf(raw)} where a list belongs`;
    const listKey =
      Object.keys(raw).find((k) => toSnake(k) === 'data') ?? Object.keys(raw).find((k) => toSnake(k) === 'items');
    if (listKey === undefined) return `a JSON object without a "data" list${fieldsOf(raw)}`;
    return Array.isArray(raw[listKey])
      ? undefined
      : `a JSON object whose "${listKey.slice(0, 40)}" is ${valueKind(raw[listKey])}, not a list`;
  }
  if (!isPlainObject(raw)) return `${kindOf(raw)} where an object belongs`;
  const useful = contractNames(shape);
  if (Object.keys(raw).some((k) => useful(toSnake(k)))) return undefined;
  return `a JSON object with none of the fields of this answer${fieldsOf(raw)}`;
}
