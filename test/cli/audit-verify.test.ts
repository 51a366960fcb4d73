import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { chainedTrail, checkpointOf, jsonl, signingKey } from '../helpers/audit-chain.js';

const key = signingKey();
const trail = chainedTrail(25, (i) => ({ note: `step ${i}` }));
let dir: string;
let keyFile: string;

/** An export as `export audit -o FILE` leaves it: FILE and FILE.checkpoint.json. */
function exportFile(name: string, text: string, checkpoint: unknown, filtered = false): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  writeFileSync(`${file}.checkpoint.json`, JSON.stringify({ checkpoint, filtered, filters: {} }));
  return file;
}

beforeAll(async () => {
  await ensureBuilt();
  dir = tempDir('aa-verify');
  keyFile = join(dir, 'appliance.pem');
  writeFileSync(keyFile, key.publicKeyPem);
}, 120_000);

describe('appliance-admin audit verify FILE', () => {
  it('exits 0 on an untouched export and says what it proved', async () => {
    const file = exportFile('good.jsonl', jsonl(trail), checkpointOf(trail[24], key));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.stdout).toMatch(
      /^verified: entries #1–#25 \(25\) complete and unaltered; checkpoint #25 of .* signed by key SHA256:/,
    );
    expect(r.code).toBe(0);
  });

  it('exits 1 with one line per finding', async () => {
    const text = jsonl(trail.filter((e) => e.seq !== 12).map((e) => (e.seq === 4 ? { ...e, status: 201 } : e)));
    const file = exportFile('bad.jsonl', text, checkpointOf(trail[24], key));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.stdout.trim().split('\n')).toEqual(['entry #4: hash does not match its contents', 'entry #12 missing']);
    expect(r.stderr).toContain('2 findings');
    expect(r.code).toBe(1);
  });

  it('with --since, finds a trail cut after the kept checkpoint', async () => {
    const keptFile = join(dir, 'kept.json');
    writeFileSync(keptFile, JSON.stringify(checkpointOf(trail[19], key)));
    const cut = trail.slice(0, 15);
    const file = exportFile('cut.jsonl', jsonl(cut), checkpointOf(cut[14], key));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile, '--since', keptFile]);
    expect(r.stdout.trim()).toBe('the file ends at #15 but the kept checkpoint was at #20 (the trail was cut since)');
    expect(r.code).toBe(1);
  });

  it('with --since, a file exported before the kept checkpoint predates it: not "the trail was cut"', async () => {
    const keptFile = join(dir, 'kept-later.json');
    writeFileSync(keptFile, JSON.stringify(checkpointOf(trail[19], key, '2026-11-26T13:00:00Z')));
    const older = trail.slice(0, 15);
    const file = exportFile('older.jsonl', jsonl(older), checkpointOf(older[14], key, '2026-11-26T12:00:00Z'));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile, '--since', keptFile]);
    expect(r.stdout.trim()).toBe(
      'the file predates the kept checkpoint: it was exported at #15 (2026-11-26T12:00:00Z), before the kept ' +
        'checkpoint #20 (2026-11-26T13:00:00Z), so it cannot show it; export the trail again',
    );
    expect(r.stdout).not.toContain('cut');
    expect(r.code).toBe(1);
  });

  it('a filtered export: exit 0, and says it cannot prove the trail complete', async () => {
    const some = trail.filter((e) => e.seq % 2);
    const file = exportFile('filtered.jsonl', jsonl(some), checkpointOf(trail[24], key), true);
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.stdout).toContain(
      'filtered export: its 13 entries are unaltered; a filtered export cannot prove the trail complete',
    );
    expect(r.code).toBe(0);
  });

  it('never lets text from the file steer the terminal', async () => {
    const cp = checkpointOf(trail[24], key, '2026-11-26T12:00:00Z\u001b]0;owned\u0007\u001b[2J');
    const file = exportFile('hostile.jsonl', jsonl(trail), cp);
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).not.toContain('\u0007');
  });

  it("audit fingerprint prints a key file's fingerprint as the deployment screen shows it", async () => {
    const r = await runCli(['audit', 'fingerprint', keyFile]);
    const f = key.fingerprint;
    expect(r.stdout.trim()).toBe(
      `SHA256:${f.slice(0, 4)} ${f.slice(4, 8)} ${f.slice(8, 12)} ${f.slice(12, 16)}  (${f})`,
    );
    expect(r.code).toBe(0);
    expect((await runCli(['audit', 'fingerprint', join(dir, 'no-such.pem')])).code).toBe(2);
  });

  it('--help lists each option once', async () => {
    const r = await runCli(['audit', 'verify', '--help']);
    expect(r.code).toBe(0);
    for (const option of ['--url URL ', '--key PEM_FILE ', '--since KEPT_FILE ', '--token-file FILE '])
      expect(r.stdout.split('\n').filter((l) => l.trimStart().startsWith(option))).toHaveLength(1);
  });

  it('refuses a key file that is not an Ed25519 public key (exit 2)', async () => {
    const bad = join(dir, 'bad.pem');
    writeFileSync(bad, 'not a key');
    const r = await runCli(['audit', 'verify', join(dir, 'good.jsonl'), '--key', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not a PEM public key');
  });
});
