import fc from 'fast-check';

/**
 * Generators of hostile requests for one mutation route. Every request they make is wrong in
 * exactly one way (body, path, query, content type or credential) and right in every other, so a
 * server that let the defect through would carry out the mutation and the test would see it.
 * Whatever might still succeed is filtered out by `mightSucceed`.
 */
export interface FuzzRoute {
  method: 'POST' | 'PUT';
  /** path under /v1/admin for the given path parameters (already encoded) */
  path(params: Record<string, string>): string;
  /** valid path parameters */
  params: Record<string, string>;
  /** every value a path parameter may take for the request to go through */
  validParamValues: Record<string, string[]>;
  /** a valid body; undefined for a route that takes none */
  body: unknown;
  /** true when the server would carry out this parsed body (valid and not refused for cause) */
  accepts(body: unknown): boolean;
}

export interface Credentials {
  /** a token allowed to make the mutation */
  token: string;
  auditor: string;
  revoked: string;
  expired: string;
}

export interface BadRequest {
  kind: string;
  /** path and query under /v1/admin */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** send the body chunked, without Content-Length */
  chunked?: boolean;
  expectStatus?: number;
  expectCode?: string;
  /** false when the path, query or credential alone makes the request fail */
  otherwiseValid: boolean;
}

const JSON_TYPE = 'application/json';
const PLACEHOLDER = '\u0000@@generated@@\u0000';
const BODY_LIMIT = 64 * 1024;

type JsonPath = (string | number)[];

/** Paths to every node of a JSON value, the root ([]) included. */
function nodePaths(v: unknown, at: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [at];
  if (Array.isArray(v)) v.forEach((item, i) => out.push(...nodePaths(item, [...at, i])));
  else if (v !== null && typeof v === 'object')
    for (const [k, item] of Object.entries(v)) out.push(...nodePaths(item, [...at, k]));
  return out;
}

function setAt(v: unknown, path: JsonPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  copy[head] = setAt(copy[head], rest, value);
  return copy;
}

function deleteAt(v: unknown, path: JsonPath): unknown {
  if (path.length === 1) {
    if (Array.isArray(v)) return v.filter((_, i) => i !== path[0]);
    const { [path[0]]: _dropped, ...rest } = v as Record<string | number, unknown>;
    return rest;
  }
  const [head, ...rest] = path;
  return setAt(v, [head], deleteAt((v as Record<string | number, unknown>)[head], rest));
}

/** The valid body with the node at `path` replaced by raw JSON text (which may be invalid JSON). */
function withRaw(body: unknown, path: JsonPath, raw: string): string {
  if (path.length === 0) return raw;
  return JSON.stringify(setAt(body, path, PLACEHOLDER)).replace(JSON.stringify(PLACEHOLDER), () => raw);
}

/** Percent-encodes the UTF-8 bytes of s, leaving only unreserved characters as they are. */
export const pct = (s: string) =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether the server could carry the request out: a conservative model of its input handling
 * (JSON media type, size, UTF-8, JSON syntax, the route's own rules). Only requests for which this
 * is false are sent, so every one of them must fail.
 */
function mightSucceed(route: FuzzRoute, req: BadRequest): boolean {
  if (!req.otherwiseValid) return false;
  const type = req.headers['content-type'];
  if (req.body === undefined || req.body.length === 0) return route.accepts(undefined);
  if (type === undefined || type.split(';')[0].trim().toLowerCase() !== JSON_TYPE) return false;
  if (req.body.length > BODY_LIMIT) return false;
  let text: string;
  try {
    text = strictUtf8.decode(req.body);
  } catch {
    return false;
  }
  if (text.trim() === '') return route.accepts(undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  return route.accepts(parsed);
}

// ---- values ----------------------------------------------------------------------------------

/** Control, format and bidi characters, and terminal escapes: never part of a name or an id. */
const CONTROL = [
  '\u0000',
  '\u0001',
  '\u0007',
  '\b',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u00ad',
  '\u200b',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2069',
  '\ufeff',
  '\u001b[31m',
  '\u001b]0;pwned\u0007',
  '\u001b]52;c;aGk=\u0007',
];
const controlString = fc
  .tuple(
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom(...CONTROL),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  )
  .map(([a, c, b]) => a + c + b);
const hugeNumber = fc.constantFrom(
  1e308,
  -1e308,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 64,
  1e21,
  1.7976931348623157e308,
  5e-324,
  Number.MAX_SAFE_INTEGER + 2,
);
const negative = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: -1 }),
  fc.double({ max: -1e-9, noNaN: true, noDefaultInfinity: true }),
);
const fraction = fc
  .double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })
  .filter((x) => !Number.isInteger(x));
/** wrong for some field of every route: wrong types, out-of-range numbers, hostile strings */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  hugeNumber,
  negative,
  fraction,
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 101, maxLength: 400 }),
  controlString,
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
);
/** number and literal texts JSON.parse reads oddly or refuses */
const rawLiteral = fc.constantFrom(
  '1e400',
  '-1e400',
  '1E+999',
  '123456789012345678901234567890',
  '-123456789012345678901234567890',
  '0.0000000000000000000000000001',
  '1.5e-400',
  '-0.0',
  '0x10',
  'NaN',
  'Infinity',
  '-Infinity',
  '-',
  '01',
  '+1',
  '.5',
  '1.',
  'true1',
  'nul',
  "'x'",
  'undefined',
  '"\\x41"',
  '"\\u12"',
  '"\\ud800"',
  '"\\udfff\\ud800"',
  '"a\\',
  '{"a" 1}',
  '[1,]',
  '{,}',
);
const INVALID_UTF8 = [
  [0xff],
  [0xfe],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0x80],
  [0xbf],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xe0, 0x80, 0xaf],
  [0xf0, 0x8f, 0xbf, 0xbf],
].map((b) => Buffer.from(b));
const POLLUTION = [
  '"__proto__":{"polluted":true}',
  '"constructor":{"prototype":{"polluted":true}}',
  '"__proto__":{"__proto__":{"polluted":true}}',
  '"prototype":{"polluted":true}',
  '"__proto__":[]',
  '"__proto__":null',
];
const WRONG_TYPES = [
  'text/plain',
  'text/json',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----fuzz',
  'application/xml',
  'application/jsonx',
  'application/json-patch+json',
  'application/problem+json',
  'application/ld+json',
  'application/octet-stream',
  '*/*',
  'application',
  'json',
  ';',
  '',
  'application/javascript',
  'application/x-json',
  'image/png',
];
const randomType = fc.string({ minLength: 1, maxLength: 60 });

// ---- requests --------------------------------------------------------------------------------

export function badRequests(route: FuzzRoute, cred: Credentials): fc.Arbitrary<BadRequest> {
  const basePath = route.path(route.params);
  const auth = { authorization: `Bearer ${cred.token}` };
  /** a request that is valid but for its body */
  const withBody = (kind: string, body: string | Buffer, extra: Partial<BadRequest> = {}): BadRequest => ({
    kind,
    path: basePath,
    headers: { ...auth, 'content-type': JSON_TYPE },
    body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    otherwiseValid: true,
    ...extra,
  });
  const validText = route.body === undefined ? '{}' : JSON.stringify(route.body);
  const validValue = route.body === undefined ? {} : route.body;
  const paths = nodePaths(route.body);
  const objectPaths = nodePaths(validValue).filter((p) => p.length > 0);
  const anyPath = fc.constantFrom(...paths);

  const arbitraryJson = fc.jsonValue().map((v) => withBody('arbitrary JSON', JSON.stringify(v)));
  const wrongField = fc
    .tuple(anyPath, wrongValue)
    .map(([p, v]) =>
      withBody(`wrong value at ${p.join('.') || '(body)'}`, JSON.stringify(setAt(route.body, p, v)) ?? 'null'),
    );
  const missingField = objectPaths.length
    ? fc
        .constantFrom(...objectPaths)
        .map((p) => withBody(`missing ${p.join('.')}`, JSON.stringify(deleteAt(validValue, p))))
    : arbitraryJson;
  const oddLiteral = fc
    .tuple(anyPath, rawLiteral)
    .map(([p, raw]) => withBody(`literal ${raw}`, withRaw(route.body, p, raw)));
  const unicode = fc
    .tuple(anyPath, controlString)
    .map(([p, str]) => withBody('control characters', JSON.stringify(setAt(route.body, p, str))));
  const longString = fc
    .tuple(anyPath, fc.integer({ min: 1025, max: 30_000 }), fc.constantFrom('x', 'é', '€', '😀'))
    .map(([p, bytes, ch]) =>
      withBody(
        'long string',
        JSON.stringify(setAt(route.body, p, ch.repeat(Math.ceil(bytes / Buffer.byteLength(ch))))),
        {
          expectStatus: 422,
          expectCode: 'SVC-BOUNDARY-1',
        },
      ),
    );
  const deep = fc
    .tuple(anyPath, fc.integer({ min: 50, max: 9000 }), fc.boolean())
    .map(([p, depth, arrays]) =>
      withBody(
        `nested ${depth} deep`,
        withRaw(
          route.body,
          p,
          arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '0' + '}'.repeat(depth),
        ),
      ),
    );
  const pollution = fc
    .tuple(fc.constantFrom(...braceOffsets(validText)), fc.constantFrom(...POLLUTION))
    .map(([at, member]) => {
      const empty = validText[at + 1] === '}';
      return withBody(
        `member ${member.split(':')[0]}`,
        validText.slice(0, at + 1) + member + (empty ? '' : ',') + validText.slice(at + 1),
      );
    });
  const duplicate =
    objectPaths.length && validText.startsWith('{') && Object.keys(validValue as object).length
      ? fc
          .tuple(fc.constantFrom(...Object.keys(validValue as object)), wrongValue)
          .map(([k, v]) =>
            withBody(
              `duplicate ${k}`,
              `${validText.slice(0, -1)},${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}}`,
            ),
          )
      : arbitraryJson;
  const truncated = fc
    .integer({ min: 1, max: validText.length - 1 })
    .map((n) => withBody(`truncated at ${n}`, validText.slice(0, n)));
  const badUtf8 = fc
    .tuple(fc.integer({ min: 0, max: validText.length }), fc.constantFrom(...INVALID_UTF8))
    .map(([at, bytes]) => {
      const text = Buffer.from(validText, 'utf8');
      return withBody(
        `invalid UTF-8 ${bytes.toString('hex')}`,
        Buffer.concat([text.subarray(0, at), bytes, text.subarray(at)]),
        { expectStatus: 400 },
      );
    });
  const wrongType = fc.oneof(fc.constantFrom(...WRONG_TYPES), randomType, fc.constant(undefined)).map((type) => {
    const req = withBody(`content type ${JSON.stringify(type)}`, validText);
    if (type === undefined) delete req.headers['content-type'];
    else req.headers['content-type'] = type;
    return req;
  });
  const oversize = fc
    .tuple(fc.integer({ min: BODY_LIMIT + 1, max: 3 * BODY_LIMIT }), fc.boolean(), fc.boolean())
    .map(([size, chunked, asString]) => {
      // valid JSON either way: trailing whitespace, or one long string field
      const text = asString
        ? JSON.stringify({ ...(validValue as object), pad: 'p'.repeat(size) })
        : validText + ' '.repeat(size - validText.length);
      return withBody(`${text.length} bytes${chunked ? ', chunked' : ''}`, text, {
        chunked,
        expectStatus: 413,
        expectCode: 'SVC-ADMIN-413',
      });
    });

  /** a valid body, wrong in what `extra` says (credential, path, query) */
  const validBodyBut = (kind: string, extra: Partial<BadRequest>): BadRequest => ({
    ...withBody(kind, validText),
    ...extra,
    otherwiseValid: false,
  });
  const tokenChars = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
    minLength: 1,
    maxLength: 200,
  });
  const mutated = fc
    .tuple(fc.nat(cred.token.length - 1), tokenChars)
    .map(([i, s]) => cred.token.slice(0, i) + s + cred.token.slice(i + 1))
    .filter((t) => t !== cred.token);
  const unauthorized = fc
    .oneof(
      fc.constantFrom(
        undefined,
        '',
        'Bearer',
        'Bearer ',
        'Bearer    ',
        `Basic ${cred.token}`,
        `Token ${cred.token}`,
        cred.token,
        `Bearer ${cred.token} ${cred.token}`,
        `Bearer ${cred.token},Bearer ${cred.token}`,
        `Bearer"${cred.token}"`,
        `Bearer ${cred.revoked}`,
        `Bearer ${cred.expired}`,
        'Bearer a.b.c',
        `Digest username="admin"`,
        'Bearer aat_',
        `Bearer ${cred.token.slice(0, -1)}`,
        `Bearer ${cred.token}x`,
      ),
      tokenChars.map((t) => `Basic ${Buffer.from(`admin:${t}`).toString('base64')}`),
      mutated.map((t) => `Bearer ${t}`),
      tokenChars.map((t) => `Bearer aat_${t}`),
      fc.integer({ min: 1000, max: 12_000 }).map((n) => `Bearer ${'A'.repeat(n)}`),
      fc
        .string({
          unit: fc
            .integer({ min: 0x20, max: 0xff })
            .filter((c) => c !== 0x7f)
            .map((c) => String.fromCharCode(c)),
          maxLength: 300,
        })
        .filter((h) => !h.includes(cred.token)),
    )
    .map((authorization) => {
      const req = validBodyBut(`authorization ${JSON.stringify(authorization)?.slice(0, 40)}`, {
        expectStatus: 401,
        expectCode: 'SVC-ADMIN-401',
      });
      if (authorization === undefined) delete req.headers.authorization;
      else req.headers.authorization = authorization;
      return req;
    });
  const auditor = fc.constant(
    validBodyBut('auditor', {
      headers: { authorization: `Bearer ${cred.auditor}`, 'content-type': JSON_TYPE },
      expectStatus: 403,
      expectCode: 'SVC-ADMIN-403',
    }),
  );
  const hugeHeaders = fc.tuple(fc.integer({ min: 17_000, max: 60_000 }), fc.boolean()).map(([n, inAuth]) =>
    validBodyBut(`${n}-byte header`, {
      headers: inAuth
        ? { authorization: `Bearer ${'t'.repeat(n)}`, 'content-type': JSON_TYPE }
        : { ...auth, 'content-type': JSON_TYPE, 'x-padding': 'p'.repeat(n) },
      expectStatus: 431,
      expectCode: 'SVC-ADMIN-431',
    }),
  );

  const queryKey = fc.oneof(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'dry_run', 'force', 'limit', 'id', '__proto__[x]', 'a[b]'),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
  );
  const query = fc
    .array(fc.tuple(queryKey, fc.string({ unit: 'grapheme', maxLength: 200 })), { minLength: 1, maxLength: 5 })
    .map((pairs) =>
      validBodyBut('query', { path: `${basePath}?${pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&')}` }),
    );

  const segment = fc.oneof(
    fc.constantFrom(
      '..',
      '.',
      '%2e%2e',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '%2e%2e%2f',
      '%00',
      '%zz',
      '%',
      '%e2%82',
      '%ed%a0%80',
      '%C0%AE%C0%AE',
      '%2F',
      '%5C..%5C',
      '',
      '%20',
    ),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }).map(pct),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(pct),
    controlString.map(pct),
    fc.integer({ min: 101, max: 4000 }).map((n) => 'k'.repeat(n)),
  );
  const paramNames = Object.keys(route.params);
  const badPath = paramNames.length
    ? fc
        .tuple(fc.constantFrom(...paramNames), segment, fc.constantFrom('replace', 'prefix', 'suffix'))
        .map(([name, seg, how]) => {
          const valid0 = route.params[name];
          const value =
            how === 'replace' ? seg : how === 'prefix' ? `${seg}${seg ? '%2F' : ''}${valid0}` : `${valid0}${seg}`;
          return validBodyBut(`path ${name}=${value.slice(0, 40)}`, {
            path: route.path({ ...route.params, [name]: value }),
          });
        })
        .filter((req) => paramStillValid(route, req.path) === false)
    : fc
        .constantFrom('/', '/x', '/..', '/%00', '/.', '//')
        .map((extra) => validBodyBut(`path +${extra}`, { path: basePath + extra }));

  return fc
    .oneof(
      arbitraryJson,
      wrongField,
      missingField,
      oddLiteral,
      unicode,
      longString,
      deep,
      pollution,
      duplicate,
      truncated,
      badUtf8,
      wrongType,
      oversize,
      unauthorized,
      auditor,
      hugeHeaders,
      query,
      badPath,
    )
    .filter((req) => !mightSucceed(route, req))
    .map(withShortDescription);
}

/** fast-check prints counterexamples with this: kind, path, header sizes and the start of the body. */
function withShortDescription(req: BadRequest): BadRequest {
  const headers = Object.entries(req.headers).map(
    ([k, v]) => `${k}: ${v.length > 80 ? `${JSON.stringify(v.slice(0, 80))}… (${v.length} chars)` : JSON.stringify(v)}`,
  );
  const body = req.body
    ? `${JSON.stringify(req.body.subarray(0, 200).toString('utf8'))}${req.body.length > 200 ? `… (${req.body.length} bytes)` : ''}`
    : '(none)';
  const text = `${req.kind}\n  path: ${req.path.slice(0, 300)}\n  ${headers.join('\n  ')}\n  body${req.chunked ? ' (chunked)' : ''}: ${body}`;
  return Object.assign(req, { [fc.toStringMethod]: () => text });
}

/** Offsets of the '{' that open objects in a valid body (its strings hold no braces). */
function braceOffsets(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i] === '{') out.push(i);
  return out;
}

/**
 * Whether a generated path would still name a valid target after the router decodes it:
 * false when some parameter is not one of its valid values (or the path cannot be decoded).
 */
function paramStillValid(route: FuzzRoute, path: string): boolean {
  const template = route.path(Object.fromEntries(Object.keys(route.params).map((k) => [k, `\u0000${k}\u0000`])));
  const pattern = new RegExp(
    `^${template
      .split(/\u0000[^\u0000]+\u0000/)
      .map(escapeRe)
      .join('([^/?#]*)')}$`,
  );
  const m = pattern.exec(path);
  if (!m) return false;
  const names = [...template.matchAll(/\u0000([^\u0000]+)\u0000/g)].map((x) => x[1]);
  return names.every((name, i) => {
    try {
      return route.validParamValues[name].includes(decodeURIComponent(m[i + 1]));
    } catch {
      return false;
    }
  });
}
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
