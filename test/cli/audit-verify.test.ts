import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { canonicalLine } from '../../src/audit-chain/canonical.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { chainedTrail, checkpointOf, signingKey, statementOf, type Entry } from '../helpers/audit-chain.js';

const key = signingKey();
const trail = chainedTrail(25, (i) => ({ note: `step ${i}` }));
let dir: string;
let keyFile: string;

/** A named pipe at `path` (coreutils' mkfifo); false where there is none. */
const mkfifoSync = (path: string) => spawnSync('mkfifo', [path]).status === 0;

const lines = (entries: Entry[]) => entries.map((e) => `${canonicalLine(e)}\n`).join('');

/** An export as `export audit -o FILE` leaves it: FILE and FILE.checkpoint.json (the signed statement). */
function exportFile(name: string, entries: Entry[], statement: unknown, checkpoint?: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, lines(entries));
  writeFileSync(`${file}.checkpoint.json`, JSON.stringify({ ...(statement as object), checkpoint }));
  return file;
}

beforeAll(async () => {
  await ensureBuilt();
  dir = tempDir('aa-verify');
  keyFile = join(dir, 'appliance.pem');
  writeFileSync(keyFile, key.publicKeyPem);
}, 120_000);

describe('appliance-admin audit verify FILE', () => {
  it('exits 0 on an untouched export with the pinned key, and says what it proved', async () => {
    const file = exportFile('good.jsonl', trail, statementOf(trail, key));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.stdout).toMatch(
      /^verified: the whole trail, entries #1–#25 \(25\), complete and unaltered; signed by key SHA256:/,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('exits 1 with one line per finding', async () => {
    const changed = trail.filter((e) => e.seq !== 12).map((e) => (e.seq === 4 ? { ...e, status: 201 } : e));
    const file = exportFile('bad.jsonl', changed, statementOf(trail, key));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.stdout.trim().split('\n')).toEqual([
      'entry #4: hash does not match its contents',
      'entry #12 missing',
      'the file holds 24 entries, the appliance signed 25',
    ]);
    expect(r.stderr).toContain('BROKEN OR INCOMPLETE (3 findings)');
    expect(r.code).toBe(1);
  });

  it('exits 3 without a key to check with: it could not check, and says what to give', async () => {
    const r = await runCli(['audit', 'verify', join(dir, 'good.jsonl')]);
    expect(r.stdout).toContain("could not check: no public key to check the export's signed statement with");
    expect(r.code).toBe(3);
  });

  it('a file without its statement cannot be proven complete: exit 1', async () => {
    const file = join(dir, 'bare.jsonl');
    writeFileSync(file, lines(trail));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.stdout).toMatch(/^no signed statement: nothing the appliance signed says what this file holds/);
    expect(r.code).toBe(1);
  });

  it('a statement file edited to claim a filter (issue 36 §3) no longer verifies', async () => {
    const cut = trail.slice(0, 20);
    const s = statementOf(trail, key);
    const edited = { ...s, statement: { ...s.statement, filters: { end_time: '2099-01-01T00:00:00Z' }, count: 20 } };
    const r = await runCli(['audit', 'verify', exportFile('edited.jsonl', cut, edited), '--key', keyFile]);
    expect(r.stdout).toMatch(/signature does not verify with key SHA256:.*: it was changed after signing/);
    expect(r.code).toBe(1);
  });

  it('with --since, finds a trail cut after the kept checkpoint', async () => {
    const keptFile = join(dir, 'kept.json');
    writeFileSync(keptFile, JSON.stringify(checkpointOf(trail[19], key)));
    const cut = trail.slice(0, 15);
    const file = exportFile('cut.jsonl', cut, statementOf(cut, key, { at: '2026-11-27T00:00:00Z' }));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile, '--since', keptFile]);
    expect(r.stdout.trim()).toBe(
      "the appliance's head is #15 (2026-11-27T00:00:00Z), but it signed #20 earlier (2026-11-26T12:00:00Z, the " +
        'kept checkpoint): the trail was cut since',
    );
    expect(r.code).toBe(1);
  });

  it('with --since, a file exported before the kept checkpoint predates it: could not check, not "cut"', async () => {
    const keptFile = join(dir, 'kept-later.json');
    writeFileSync(keptFile, JSON.stringify(checkpointOf(trail[19], key, '2026-11-26T13:00:00Z')));
    const older = trail.slice(0, 15);
    const file = exportFile('older.jsonl', older, statementOf(older, key, { at: '2026-11-26T12:00:00Z' }));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile, '--since', keptFile]);
    expect(r.stdout.trim()).toBe(
      'could not check: the file predates the kept checkpoint: it was exported at #15 (2026-11-26T12:00:00Z), ' +
        'before the kept checkpoint #20 (2026-11-26T13:00:00Z), so it cannot show it; export the trail again',
    );
    expect(r.code).toBe(3);
  });

  it('a kept checkpoint edited to another hash (issue 36 §6) is refused by its signature', async () => {
    const keptFile = join(dir, 'kept-edited.json');
    writeFileSync(keptFile, JSON.stringify({ ...checkpointOf(trail[19], key), hash: 'a'.repeat(64) }));
    const r = await runCli(['audit', 'verify', join(dir, 'good.jsonl'), '--key', keyFile, '--since', keptFile]);
    expect(r.stdout).toContain('the kept checkpoint #20 is not signed by the key you pinned');
    expect(r.code).toBe(1);
  });

  it('a filtered export verifies its signed selection: exit 0, and says what it cannot show', async () => {
    const some = trail.filter((e) => e.seq % 2);
    const file = exportFile('filtered.jsonl', some, statementOf(some, key, { head: trail[24], filters: { q: 'x' } }));
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    expect(r.stdout).toContain('verified: the 13 entries the appliance selected up to #25 (filters: q="x")');
    expect(r.stdout).toContain('a filtered export: the entries between those selected are not in it');
    expect(r.code).toBe(0);
  });

  it('never lets text from the file steer the terminal', async () => {
    const hostile = { ...statementOf(trail, key), key_fingerprint: 'zz\u001b]0;owned\u0007\u001b[2J' };
    const file = exportFile('hostile.jsonl', trail, hostile);
    const r = await runCli(['audit', 'verify', file, '--key', keyFile]);
    // not a statement: a finding, as any file that cannot vouch for the export
    expect(r.stdout).toMatch(/^the statement file .* is unusable: its statement is unusable: it names no key/);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toContain('\u001b');
    expect(r.stdout + r.stderr).not.toContain('\u0007');
  });

  it('reads only regular files: a FIFO is refused at once rather than waited on', async () => {
    const fifo = join(dir, 'fifo.jsonl');
    if (!mkfifoSync(fifo)) return;
    const r = await runCli(['audit', 'verify', fifo, '--key', keyFile], { timeoutMs: 10_000 });
    expect(r.stdout).toContain('could not check: the export');
    expect(r.stdout).toContain('is not a regular file');
    expect(r.code).toBe(3);
    const missing = await runCli(['audit', 'verify', join(dir, 'no-such.jsonl'), '--key', keyFile]);
    expect(missing.stdout).toContain('could not check: cannot read the export');
    expect(missing.code).toBe(3);
  });

  it('audit fingerprint prints each key of a PEM file as the deployment screen shows it', async () => {
    const other = signingKey();
    const both = join(dir, 'both.pem');
    writeFileSync(both, key.publicKeyPem + other.publicKeyPem);
    const r = await runCli(['audit', 'fingerprint', both]);
    const shown = (f: string) =>
      `SHA256:${f.slice(0, 4)} ${f.slice(4, 8)} ${f.slice(8, 12)} ${f.slice(12, 16)}  (${f})`;
    expect(r.stdout.trim().split('\n')).toEqual([shown(key.fingerprint), shown(other.fingerprint)]);
    expect(r.code).toBe(0);
    expect((await runCli(['audit', 'fingerprint', join(dir, 'no-such.pem')])).code).toBe(2);
  });

  it('--help lists each option once and the exit statuses', async () => {
    const r = await runCli(['audit', 'verify', '--help']);
    expect(r.code).toBe(0);
    for (const option of ['--url URL ', '--key PEM_FILE ', '--since KEPT_FILE ', '--token-file FILE '])
      expect(r.stdout.split('\n').filter((l) => l.trimStart().startsWith(option))).toHaveLength(1);
    expect(r.stdout).toMatch(/0 verified with the pinned key +1 broken/);
  });

  it('refuses a key file that is not an Ed25519 public key (exit 2)', async () => {
    const bad = join(dir, 'bad.pem');
    writeFileSync(bad, 'not a key');
    const r = await runCli(['audit', 'verify', join(dir, 'good.jsonl'), '--key', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is not a PEM public key');
  });
});
