import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evidenceCommand } from '../../src/cli/evidence.js';
import { KEY_INVENTORY, PackError, writeKeyInventory } from '../../src/audit-chain/evidence-pack.js';
import { verifyPack } from '../../src/audit-chain/evidence-verify.js';
import { checkKeyInventory } from '../../src/audit-chain/key-inventory-check.js';
import { writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertGatewayKeys, numberedKeys } from '../helpers/seed-gateway-keys.js';

/**
 * The evidence pack's key inventory at a million keys (issue 41 §6): keys.jsonl, one key a line,
 * written a page at a time within bounds, and read by the verifier as hostile (bounded line, count
 * and size, a clear finding naming the line). A pack made before it, with keys.json, still verifies.
 */
const KEYS = 1203; // three pages of 500 and a few
let s: TestServer;
let dir: string;
let pack: string;

beforeAll(async () => {
  s = await startTestServer();
  dir = tempDir('aa-key-inventory');
  const db = s.server.db;
  const created = new Date(Date.now() - 86_400_000).toISOString();
  insertGatewayKeys(
    db,
    numberedKeys('inv', KEYS, (i) => ({ name: `inventory-${i}`, created_at: created })),
  );
  pack = join(dir, 'pack');
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    const code = await evidenceCommand([
      '--since',
      '30d',
      '-o',
      pack,
      '--url',
      s.url,
      '--token-file',
      writeTokenFile(s.tokens.auditor),
    ]);
    expect(code).toBe(0);
  } finally {
    out.mockRestore();
  }
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n');

describe('the key inventory of an evidence pack', () => {
  it('is keys.jsonl: every key once, one a line as served, listed in the manifest; no keys.json', () => {
    expect(existsSync(join(pack, 'keys.json'))).toBe(false);
    const keys = lines(join(pack, KEY_INVENTORY)).map((l) => JSON.parse(l) as { id: string; secret?: string });
    expect(keys).toHaveLength(KEYS);
    expect(new Set(keys.map((k) => k.id)).size).toBe(KEYS);
    expect(keys.every((k) => k.secret === undefined)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(pack, 'manifest.json'), 'utf8')) as {
      files: { name: string; sha256: string; bytes: number }[];
    };
    const listed = manifest.files.find((f) => f.name === KEY_INVENTORY)!;
    const bytes = readFileSync(join(pack, KEY_INVENTORY));
    expect(listed).toEqual({
      name: KEY_INVENTORY,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
    });
    expect(readFileSync(join(pack, 'README.txt'), 'utf8')).toContain('keys.jsonl');
  });

  it('verifies, and the verifier says how many keys it holds', async () => {
    const r = await verifyPack(pack);
    expect(r.findings).toEqual([]);
    expect(r.verdict).toBe('verified-unpinned');
    expect(r.notes).toContain(`keys.jsonl: ${KEYS.toLocaleString('en-US')} gateway keys, one a line`);
  });

  it('a line that is no key, or longer than a key may be, is a finding naming the line; nothing past the bound is held', async () => {
    const copy = join(dir, 'tampered');
    const original = readFileSync(join(pack, KEY_INVENTORY), 'utf8').split('\n');
    cpSync(pack, copy, { recursive: true });
    // a line of 200 KiB with no newline after it, on line 3
    writeFileSync(join(copy, KEY_INVENTORY), [...original.slice(0, 2), 'x'.repeat(200 * 1024)].join('\n'));
    const long = await verifyPack(copy);
    expect(long.verdict).toBe('broken');
    expect(long.findings).toContain('keys.jsonl does not match the manifest (changed after the pack was made)');
    expect(long.findings).toContain('keys.jsonl line 3 is longer than 65,536 bytes: not a key');
    writeFileSync(join(copy, KEY_INVENTORY), [original[0], '[1,2]', ...original.slice(2)].join('\n'));
    expect((await verifyPack(copy)).findings).toContain('keys.jsonl line 2 is not a gateway key (a JSON object)');
  });

  it('a pack made before keys.jsonl, with keys.json, still verifies', async () => {
    // made as the version before made it: the inventory as one JSON array, the manifest over it, then sealed
    const old = join(dir, 'old');
    cpSync(pack, old, { recursive: true });
    const keys = lines(join(old, KEY_INVENTORY)).map((l) => JSON.parse(l) as unknown);
    writeFileSync(join(old, 'keys.json'), `${JSON.stringify(keys, null, 2)}\n`);
    renameSync(join(old, KEY_INVENTORY), join(dir, 'moved-away.jsonl'));
    const manifest = JSON.parse(readFileSync(join(old, 'manifest.json'), 'utf8')) as {
      files: { name: string; sha256: string; bytes: number }[];
    };
    manifest.files = manifest.files
      .filter((f) => f.name !== KEY_INVENTORY)
      .concat({
        name: 'keys.json',
        sha256: createHash('sha256')
          .update(readFileSync(join(old, 'keys.json')))
          .digest('hex'),
        bytes: statSync(join(old, 'keys.json')).size,
      })
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const text = `${JSON.stringify(manifest, null, 2)}\n`;
    writeFileSync(join(old, 'manifest.json'), text);
    const seal = await s.call('POST', '/audit/seal', {
      role: 'auditor',
      body: { sha256: createHash('sha256').update(text).digest('hex'), purpose: 'evidence-pack' },
    });
    expect(seal.status, seal.text).toBe(201);
    writeFileSync(join(old, 'seal.json'), `${JSON.stringify(seal.json, null, 2)}\n`);
    const r = await verifyPack(old);
    expect(r.findings).toEqual([]);
    expect(r.verdict).toBe('verified-unpinned');
    expect(r.notes.some((n) => n.startsWith('keys.jsonl'))).toBe(false);
  });
});

describe('writing the inventory', () => {
  const signal = new AbortController().signal;
  const key = (i: number) => ({ id: `key_${i}`, name: `k-${i}` });

  it('writes each page before it asks for the next', async () => {
    const file = join(tempDir('aa-inv-pages'), KEY_INVENTORY);
    const sizes: number[] = [];
    const written = await writeKeyInventory(
      {
        json: (_route, query) => {
          sizes.push(existsSync(file) ? statSync(file).size : -1);
          const page = query?.after === undefined ? 0 : Number(query.after);
          const data = Array.from({ length: 500 }, (_, i) => key(page * 500 + i));
          return Promise.resolve({ data, has_more: page < 3, next_cursor: page < 3 ? String(page + 1) : null });
        },
      },
      file,
      signal,
    );
    expect(written).toBe(2000);
    expect(lines(file)).toHaveLength(2000);
    // before page n, the n pages before it are on disk already
    const perPage = Buffer.byteLength(Array.from({ length: 500 }, (_, i) => `${JSON.stringify(key(i))}\n`).join(''));
    expect(sizes[0]).toBe(0);
    expect(sizes[1]).toBe(perPage);
    expect(sizes[3]).toBeGreaterThan(sizes[2]);
  });

  it('stops with a clear error past its bounds or when the cursor does not move', async () => {
    const limits = { keyLineBytes: 100, keys: 1200, keyInventoryBytes: 1_000_000 };
    const endless = {
      json: (_r: string, q: Record<string, unknown> | undefined) =>
        Promise.resolve({
          data: Array.from({ length: 500 }, (_, i) => key(i)),
          has_more: true,
          next_cursor: String(Number(q?.after ?? 0) + 1),
        }),
    };
    const where = () => join(tempDir('aa-inv-bounds'), KEY_INVENTORY);
    await expect(writeKeyInventory(endless, where(), signal, limits)).rejects.toThrow(
      new PackError(
        'the appliance listed more than 1,200 gateway keys, more than a pack holds; stopped, no pack was made',
      ),
    );
    const stuck = {
      json: () => Promise.resolve({ data: [key(1)], has_more: true, next_cursor: 'same' }),
    };
    await expect(writeKeyInventory(stuck, where(), signal, limits)).rejects.toThrow(/did not move past a page/);
    const huge = { json: () => Promise.resolve({ data: [{ id: 'k', name: 'n'.repeat(200) }], next_cursor: null }) };
    await expect(writeKeyInventory(huge, where(), signal, limits)).rejects.toThrow(
      /more than 100 bytes for one gateway key/,
    );
    await expect(
      writeKeyInventory(endless, where(), signal, { ...limits, keys: 1_000_000, keyInventoryBytes: 40_000 }),
    ).rejects.toThrow(/more than 40,000 bytes for the gateway keys/);
  });
});

describe('checking the inventory as hostile', () => {
  const limits = { keyLineBytes: 64, keys: 3, keyInventoryBytes: 10_000 };
  const check = (text: string | Buffer) => {
    const file = join(tempDir('aa-inv-check'), KEY_INVENTORY);
    writeFileSync(file, text);
    return checkKeyInventory(file, limits);
  };

  it('counts keys, the last line with or without its newline, an empty file as none', async () => {
    expect(await check('{"id":"a"}\n{"id":"b"}\n')).toEqual({ ok: true, keys: 2 });
    expect(await check('{"id":"a"}\n{"id":"b"}')).toEqual({ ok: true, keys: 2 });
    expect(await check('')).toEqual({ ok: true, keys: 0 });
  });

  it('names the first line that is not a key, too long, or past the count', async () => {
    expect(await check('{"id":"a"}\n\n')).toEqual({ ok: false, problem: 'line 2 is not JSON' });
    expect(await check('{"id":"a"}\n"text"\n')).toEqual({
      ok: false,
      problem: 'line 2 is not a gateway key (a JSON object)',
    });
    expect(await check('null\n')).toMatchObject({
      ok: false,
      problem: 'line 1 is not a gateway key (a JSON object)',
    });
    expect(await check(`{"id":"a"}\n{"id":"${'x'.repeat(100)}"}\n`)).toEqual({
      ok: false,
      problem: 'line 2 is longer than 64 bytes: not a key',
    });
    // a line far longer than the read buffer, never ending: found at the bound, not held whole
    expect(await check(Buffer.alloc(9_000, 0x78))).toEqual({
      ok: false,
      problem: 'line 1 is longer than 64 bytes: not a key',
    });
    expect(await check('{"id":"a"}\n{"id":"b"}\n{"id":"c"}\n{"id":"d"}\n')).toEqual({
      ok: false,
      problem: 'holds more than 3 keys, more than a pack may',
    });
  });

  it('leaves a file too large, missing or not regular to the manifest check', async () => {
    expect(await check(Buffer.alloc(10_001, 0x0a))).toEqual({ ok: false, skipped: true });
    expect(await checkKeyInventory(join(tempDir('aa-inv-none'), KEY_INVENTORY), limits)).toEqual({
      ok: false,
      skipped: true,
    });
    expect(await checkKeyInventory(tempDir('aa-inv-dir'), limits)).toEqual({ ok: false, skipped: true });
  });
});
