import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { entryHash } from '../helpers/audit-chain.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * audit prove, sample and verify-proof against the real server on loopback (issue 40 §3): proof files
 * an auditor carries away, checked offline; the tamper suite's changed entry and foreign key.
 */
let s: TestServer;
let dir: string;
let keyFile: string;
let token: string;
let state: string;
const SINCE = '2026-03-01T00:00:30Z';

const seed = (n: number, from: number): AuditSeed[] =>
  Array.from({ length: n }, (_, i) => ({
    actor: { subject: i % 2 ? 'ana' : 'bo', role: 'it_admin' },
    action: 'gateway.key.create',
    target: { type: 'gateway_key', id: `gk_${from + i}` },
    outcome: 'success',
    status: 201,
    request_id: `req_p${from + i}`,
    source_ip: null,
    at_ms: Date.parse('2026-03-01T00:00:00Z') + (from + i) * 1000,
  }));
const seal = async (srv: TestServer) =>
  expect(
    (
      await srv.call('POST', '/audit/seal', {
        role: 'auditor',
        body: { sha256: 'ab'.repeat(32), purpose: 'evidence-pack' },
      })
    ).status,
  ).toBe(201);
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(['audit', ...args], { env: { XDG_STATE_HOME: state, ...env } });
const online = () => ['--url', s.url, '--token-file', token, '--key', keyFile];

beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer();
  insertAuditBatch(s.server.db, seed(60, 0));
  await seal(s);
  dir = tempDir('aa-proofs');
  state = tempDir('aa-proofs-state');
  token = writeTokenFile(s.tokens.auditor);
  keyFile = join(dir, 'appliance.pem');
  const keys = (await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' })).json.public_keys;
  writeFileSync(keyFile, keys[0].public_key_pem);
}, 120_000);
afterAll(() => s.close());

describe('audit prove and verify-proof', () => {
  it('writes entries with their inclusion proofs, which verify offline with the pinned key', async () => {
    const file = join(dir, 'three.proof.json');
    const r = await cli(['prove', '3', '41', '17', '-o', file, ...online()]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^wrote .*three\.proof\.json: 3 entries with inclusion proofs\n {2}against checkpoint #61 of .* \(tree size 61, appliance-admin\/[0-9a-f]{16}\)/,
    );
    expect(r.code).toBe(0);
    const proof = JSON.parse(readFileSync(file, 'utf8'));
    expect(proof.format).toBe('appliance-admin/audit-proof/v1');
    expect(proof.entries.map((e: { entry: { seq: number } }) => e.entry.seq)).toEqual([3, 17, 41]);
    expect(proof.entries[0].path).toHaveLength(6);
    const v = await cli(['verify-proof', file, '--key', keyFile]);
    expect(v.stdout).toMatch(
      /^verified: entries #3, #17, #41 unaltered and in the trail of appliance-admin\/[0-9a-f]{16} at tree size 61/m,
    );
    expect(v.code).toBe(0);
  });

  it('a changed entry fails its proof, even with its hash made again (the tamper suite)', async () => {
    const file = join(dir, 'three.proof.json');
    const proof = JSON.parse(readFileSync(file, 'utf8'));
    const changed = { ...proof.entries[1].entry, outcome: 'denied' };
    proof.entries[1].entry = { ...changed, hash: entryHash(changed) };
    const forged = join(dir, 'changed.proof.json');
    writeFileSync(forged, JSON.stringify(proof));
    const v = await cli(['verify-proof', forged, '--key', keyFile]);
    expect(v.stdout).toContain(
      "entry #17: its inclusion proof does not lead to the checkpoint's root: it is not in the signed trail as it is",
    );
    expect(v.stderr).toContain('BROKEN OR INCOMPLETE');
    expect(v.code).toBe(1);
  });

  it('a proof against a checkpoint signed by another key fails with the pinned key', async () => {
    const other = await startTestServer();
    try {
      insertAuditBatch(other.server.db, seed(60, 0));
      await seal(other);
      const file = join(dir, 'other.proof.json');
      const r = await cli([
        'prove',
        '5',
        '-o',
        file,
        '--url',
        other.url,
        '--token-file',
        writeTokenFile(other.tokens.auditor),
      ]);
      expect(r.code).toBe(4); // the keys that appliance serves: not pinned
      const v = await cli(['verify-proof', file, '--key', keyFile]);
      expect(v.stdout).toMatch(/^the proof file's checkpoint #61 is signed by key SHA256:.* not the key you pinned/);
      expect(v.code).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('refuses an entry not signed yet and one that does not exist, writing nothing', async () => {
    const file = join(dir, 'none.proof.json');
    const r = await cli(['prove', '9999', '-o', file, ...online()]);
    expect(r.stdout).toMatch(/could not check: entry #9,999 is not signed yet: the newest checkpoint is #61/);
    expect(r.code).toBe(3);
    expect(() => readFileSync(file)).toThrow();
    expect((await cli(['prove', 'x', '-o', file, ...online()])).code).toBe(2);
  });
});

describe('audit verify-proof on hostile files', () => {
  it('refuses a FIFO, junk and an oversized file in one line each, without hanging or a stack', async () => {
    const fifo = join(dir, 'fifo.proof.json');
    execFileSync('mkfifo', [fifo]);
    const r = await cli(['verify-proof', fifo, '--key', keyFile]);
    expect(r.stdout).toBe(`could not check: ${fifo} is not a regular file\n`);
    expect(r.code).toBe(3);
    const junk = join(dir, 'junk.proof.json');
    writeFileSync(
      junk,
      JSON.stringify({
        format: 'appliance-admin/audit-proof/v1',
        checkpoint: { seq: 1, hash: '\x1b[2J' },
        entries: [],
      }),
    );
    const j = await cli(['verify-proof', junk, '--key', keyFile]);
    expect(j.stdout).toMatch(/is unusable: its checkpoint is unusable: /);
    expect(j.stdout + j.stderr).not.toContain('\x1b');
    expect(j.code).toBe(1);
    const big = join(dir, 'big.proof.json');
    writeFileSync(big, Buffer.alloc(64 * 1024 * 1024 + 1, 0x20));
    const b = await cli(['verify-proof', big, '--key', keyFile]);
    expect(b.stdout).toMatch(/is larger than 67,108,864 bytes: not a proof file/);
    expect(b.code).toBe(1);
  });
});

describe('audit sample', () => {
  it('draws N entries from a stated seed, states the population, and verifies; the same seed draws the same', async () => {
    const seedHex = '5eed'.repeat(16);
    const out = join(dir, 'sample-a');
    const r = await cli(['sample', '5', '--since', SINCE, '--seed', seedHex, '-o', out, ...online()]);
    // entries from #31 (the first at or after SINCE) to the checkpoint's head #61: 31 of them
    expect(r.stdout).toMatch(new RegExp(`: 5 of 31 entries written since ${SINCE}, drawn from seed ${seedHex}`));
    expect(r.code).toBe(0);
    const proof = JSON.parse(readFileSync(join(out, 'sample.proof.json'), 'utf8'));
    expect(proof.sample).toMatchObject({ seed: seedHex, since: SINCE, population: 31, size: 5 });
    const seqs = proof.entries.map((e: { entry: { seq: number } }) => e.entry.seq);
    expect(seqs.every((q: number) => q >= 31 && q <= 61)).toBe(true);
    expect(readFileSync(join(out, 'sample.txt'), 'utf8')).toContain(`5 of 31 entries`);
    const v = await cli(['verify-proof', join(out, 'sample.proof.json'), '--key', keyFile]);
    expect(v.stdout).toMatch(/^the sample: 5 of 31 entries/m);
    expect(v.code).toBe(0);
    const again = join(dir, 'sample-b');
    expect((await cli(['sample', '5', '--since', SINCE, '--seed', seedHex, '-o', again, ...online()])).code).toBe(0);
    const seqs2 = JSON.parse(readFileSync(join(again, 'sample.proof.json'), 'utf8')).entries.map(
      (e: { entry: { seq: number } }) => e.entry.seq,
    );
    expect(seqs2).toEqual(seqs);
  });

  it('a sample whose entries were swapped for others (with valid proofs) is caught by its seed', async () => {
    const proof = JSON.parse(readFileSync(join(dir, 'sample-a', 'sample.proof.json'), 'utf8'));
    const prove = join(dir, 'one.proof.json');
    const chosen = proof.entries.map((e: { entry: { seq: number } }) => e.entry.seq);
    const other = [31, 32, 33, 34, 35, 36].find((q) => !chosen.includes(q))!;
    expect((await cli(['prove', String(other), '-o', prove, ...online()])).code).toBe(0);
    proof.entries[0] = JSON.parse(readFileSync(prove, 'utf8')).entries[0];
    proof.entries.sort((a: { leaf_index: number }, b: { leaf_index: number }) => a.leaf_index - b.leaf_index);
    const swapped = join(dir, 'swapped.proof.json');
    writeFileSync(swapped, JSON.stringify(proof));
    const v = await cli(['verify-proof', swapped, '--key', keyFile]);
    expect(v.stdout).toContain('the entries are not those the stated seed draws: the sample was chosen otherwise');
    expect(v.code).toBe(1);
  });
});
