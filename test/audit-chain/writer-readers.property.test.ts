import { createHash, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { recordAudit, type AuditRecord } from '../../src/server/audit.js';
import { KEY_FILE } from '../../src/server/audit-chain/keys.js';
import { entryHash } from '../../src/audit-chain/canonical.js';
import { keyFingerprint } from '../../src/audit-chain/checkpoint.js';
import { readTrail, type TrailFormat } from '../../src/audit-chain/read-trail.js';
import { asSignedStatement } from '../../src/audit-chain/statement.js';
import { OTHER_READINGS, type AuditEntryLike, type TrailItem } from '../../src/audit-chain/trail-items.js';
import { verifyTrail, type Trust } from '../../src/audit-chain/verify-trail.js';

/**
 * Issue 36, "Tests": whatever text the server accepts into an audit entry, the writer and every
 * reader agree on the entry and its hash. Each run writes one entry through recordAudit into a real
 * database, then reads it back as the API serves it (GET /audit, hashed with entryHash and with the
 * generic `canonicalize` package) and in both exports (readTrail and verifyTrail against the
 * export's signed statement, with the appliance's key pinned): all must agree, and both exports
 * must verify.
 */
type Entry = Record<string, any>;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Text with what breaks naive encoders: controls, bidi and format characters, quotes, formula starts, lone surrogates. */
const TRICKY = [
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u00ad',
  '\u2028',
  '\u2029',
  '\u202e',
  '\u2066',
  '\u200b',
  '\u200d',
  '\ufeff',
  '\ufffd',
  '"',
  '\\',
  "'",
  '=',
  '+',
  '-',
  '@',
  ',',
  ';',
  '😀',
  '👩‍👩‍👧',
  'é',
  'e\u0301',
  '\ud800',
  '\udfff',
  '\udc00\ud800',
];
const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) },
  // any UTF-16 code unit, a lone surrogate among them
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) },
);
const text = (maxPieces = 12) => fc.array(piece, { maxLength: maxPieces }).map((p) => p.join(''));
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    2 ** 53 - 1,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    2 ** 60,
    2 ** 64,
    1e21,
    1e300,
    5e-324,
    -0,
    0.1 + 0.2,
    123456789012345680000,
  ),
);
const value = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text(),
    number,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('json'), { maxLength: 4 }),
    fc.dictionary(text(4), tie('json'), { maxKeys: 4 }),
  ),
})).json;

let runs = 0;
const record = (bigText?: fc.Arbitrary<string>) =>
  fc
    .record({
      subject: text(),
      role: fc.constantFrom('it_admin' as const, 'app_owner' as const, 'auditor' as const, null),
      action: text(6),
      type: text(4),
      id: fc.option(text(4)),
      name: bigText ?? fc.option(text()),
      outcome: fc.constantFrom('success' as const, 'denied' as const, 'failed' as const),
      status: fc.constantFrom(200, 201, 400, 401, 403, 404, 405, 409, 422, 500, 503),
      source_ip: fc.option(fc.oneof(fc.ipV4(), fc.ipV6(), text(3))),
      details: fc.dictionary(text(4), value, { maxKeys: 6 }),
    })
    .map((r): AuditRecord => ({
      actor: { subject: r.subject, role: r.role },
      action: r.action,
      target: { type: r.type, id: r.id, name: r.name },
      outcome: r.outcome,
      status: r.status,
      request_id: `req_prop_${++runs}`,
      source_ip: r.source_ip,
      details: r.details as Record<string, unknown>,
    }));

/** What the writer stores for `v`: lone surrogates as U+FFFD (chain.ts), then as JSON reads it back. */
const wellFormed = (v: unknown): unknown =>
  typeof v === 'string'
    ? v.replace(/\p{Surrogate}/gu, '\ufffd')
    : Array.isArray(v)
      ? v.map(wellFormed)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [wellFormed(k), wellFormed(x)]))
        : v;
const asStored = (v: unknown) => JSON.parse(JSON.stringify(wellFormed(v)));

let s: TestServer;
let trust: Trust;
beforeAll(async () => {
  s = await startTestServer();
  // pinned out of band: the public half of the key in the data directory, not a key the API served
  const key = createPublicKey(readFileSync(join(s.dataDir, KEY_FILE), 'utf8'));
  trust = { keys: new Map([[keyFingerprint(key), key]]), pinned: true, source: 'the key you pinned' };
});
afterAll(async () => {
  await s?.close();
});

/**
 * An export in `format` (the whole trail, or the entries `filters` select), read and verified as
 * `audit verify` does: the report, the items read and the bytes.
 */
async function exported(format: TrailFormat, filters: Record<string, string> = {}) {
  const query = new URLSearchParams({ format, ...filters });
  const res = await request(`${s.url}/v1/admin/audit/export?${query}`, {
    headers: { authorization: `Bearer ${s.tokens.auditor}` },
  });
  expect(res.statusCode).toBe(200);
  const body = Buffer.from(await res.body.arrayBuffer());
  const statement = asSignedStatement(JSON.parse(String(res.headers['audit-export-statement'])));
  if (typeof statement === 'string') throw new Error(`no signed statement: ${statement}`);
  const info: { value?: TrailFormat } = {};
  const batches: TrailItem[][] = [];
  for await (const batch of readTrail(Readable.from([body]), info)) batches.push(batch);
  const report = await verifyTrail(batches, { statement, trust, asked: filters, format: info });
  expect(info.value).toBe(format);
  expect({ format, verdict: report.verdict, findings: report.findings, unknowns: report.unknowns }).toEqual({
    format,
    verdict: 'verified',
    findings: [],
    unknowns: [],
  });
  return { report, items: batches.flat() as Entry[], body };
}

async function agree(rec: AuditRecord): Promise<void> {
  recordAudit(s.server.db, rec);
  const stored = s.server.db.prepare('SELECT seq, hash FROM audit WHERE request_id = ?').get(rec.request_id) as {
    seq: number;
    hash: string;
  };

  // (a) the JSON list the API serves, hashed with the scheme's encoder
  const listed = await s.call('GET', `/audit?request_id=${rec.request_id}`, { role: 'auditor' });
  expect(listed.status).toBe(200);
  expect(listed.json.data).toHaveLength(1);
  const served: Entry = listed.json.data[0];
  const { hash, ...unhashed } = served;
  expect(hash).toBe(stored.hash);
  expect(served).toMatchObject({
    seq: stored.seq,
    actor: asStored(rec.actor),
    action: asStored(rec.action),
    target: asStored({ ...rec.target, name: rec.target.name ?? null }),
    outcome: rec.outcome,
    status: rec.status,
    source_ip: asStored(rec.source_ip),
  });
  expect(served.details).toEqual(asStored(rec.details));
  expect(entryHash(unhashed)).toBe(hash);
  // (d) the generic RFC 8785 canonicalization over the entry as served
  expect(sha256(canonicalize(unhashed)!)).toBe(hash);

  // (b) JSON Lines and (c) CSV: the export of this entry (its request) verifies with the key pinned
  // and holds it as served; the whole trail is verified at the end
  for (const format of ['jsonl', 'csv'] as const) {
    const { items, body } = await exported(format, { request_id: rec.request_id });
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item.hash).toBe(hash);
    if (format === 'jsonl') {
      // the verifier hashes a line as it came and reads only its chain fields: the line, parsed as any tool would
      expect(JSON.parse(body.toString('utf8'))).toEqual(served);
    } else {
      // where CSV cannot tell readings apart (an empty cell, a formula guard) the reader offers each
      const others = (item as AuditEntryLike)[OTHER_READINGS]?.() ?? [];
      const readings = [item, ...others].map((r) => JSON.parse(JSON.stringify(r)));
      expect(readings).toContainEqual(served);
    }
  }
}

describe('the writer and every reader agree', () => {
  afterAll(async () => {
    // every entry written above, in the whole trail's export: contiguous, from the genesis
    for (const format of ['jsonl', 'csv'] as const) {
      const { report } = await exported(format);
      expect(report.entries).toBeGreaterThan(runs);
    }
  }, 120_000);

  it('on a CSV cell whose line starts with U+FEFF (a reader once dropped it as a byte order mark)', async () => {
    await agree({
      actor: { subject: 'first line\n\ufeffsecond line', role: 'auditor' },
      action: 'channel.update',
      target: { type: 'channel', id: '\r\n\ufeff', name: '\ufeff' },
      outcome: 'denied',
      status: 403,
      request_id: `req_prop_${++runs}`,
      source_ip: null,
      details: { text: 'a\n\ufeffb' },
    });
  });

  it('on any text and number the server takes into an entry', async () => {
    await fc.assert(fc.asyncProperty(record(), agree), { numRuns: 30 });
  }, 120_000);

  it('on strings of a megabyte', async () => {
    // a megabyte of text, mostly characters that JSON does not escape (an escaped control is six
    // bytes: a megabyte of them would pass the readers' 4 MiB line cap, which the 64 KiB request
    // body keeps any real entry far below)
    const filler = fc.constantFrom('a', 'é', '漢', '😀', '\u202e', ' ');
    const big = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 40 }), filler).map(([pieces, fill]) => {
      const unit = pieces.join('') + fill.repeat(3000);
      // cut at a megabyte of UTF-16 units, which may leave half a pair: a lone surrogate, at the end
      return unit.repeat(Math.ceil(1_000_000 / unit.length)).slice(0, 1_000_000);
    });
    // a counterexample is told by its size and start, not printed whole
    const shown = record(big).map((r) =>
      Object.assign(r, {
        [fc.toStringMethod]: () =>
          `a record whose target name is ${r.target.name!.length} units, starting ${JSON.stringify(r.target.name!.slice(0, 80))}`,
      }),
    );
    await fc.assert(fc.asyncProperty(shown, agree), { numRuns: 3 });
  }, 120_000);
});
