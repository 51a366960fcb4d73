import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAuditBatch } from '../../src/server/governance/bulk.js';
import { auditSeeds as seed, seal, startForkedPair } from '../helpers/audit-fork.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/server.js';

/**
 * The tamper suite's fork (issue 40 §4): one appliance's data directory copied, then the copies
 * diverge, each signing its own history with the same key, as someone holding the key could show
 * one auditor the true trail and another a forged one. A witness and the CLI's remembered
 * checkpoint each catch it; both signed checkpoints are written as evidence.
 */
let truth: TestServer;
let forged: TestServer;
let dir: string;
let keyFile: string;
let witnessKey: string;
const tokens: Record<string, string> = {};

const at = (srv: TestServer) => ['--url', srv.url, '--token-file', tokens[srv.url]!, '--key', keyFile];
const cli = (args: string[], state: string) => runCli(['audit', ...args], { env: { XDG_STATE_HOME: state } });
const forks = (state: string) => readdirSync(join(state, 'appliance-admin', 'forks'));

beforeAll(async () => {
  await ensureBuilt();
  ({ dir, truth, forged } = await startForkedPair('aa-fork', 40));
  for (const s of [truth, forged]) tokens[s.url] = writeTokenFile(s.tokens.auditor);
  // from here on the two histories differ: the forger's hides what the true one records
  insertAuditBatch(truth.server.db, seed(20, 'mallory'));
  await seal(truth);
  insertAuditBatch(forged.server.db, seed(25, 'nobody'));
  await seal(forged);
  keyFile = join(dir, 'appliance.pem');
  writeFileSync(keyFile, (await truth.call('GET', '/audit/checkpoints?limit=1')).json.public_keys[0].public_key_pem);
  expect((await forged.call('GET', '/audit/checkpoints?limit=1')).json.public_keys[0].public_key_pem).toBe(
    readFileSync(keyFile, 'utf8'),
  );
  witnessKey = join(dir, 'witness.key');
  const made = await runCli(['audit', 'witness-key', '--name', 'witness.example/aude', '-o', witnessKey]);
  expect(made.code).toBe(0);
}, 120_000);
afterAll(async () => {
  await truth?.close();
  await forged?.close();
});

describe('a fork: two histories signed by the same key', () => {
  it('each history alone verifies whole with the pinned key: only comparing them shows the fork', async () => {
    for (const s of [truth, forged]) {
      const r = await cli(['verify', ...at(s)], tempDir('aa-fork-state'));
      expect(r.stdout).toMatch(/^verified: the whole trail/m);
      expect(r.code).toBe(0);
    }
  });

  it("is caught by the CLI's remembered checkpoint, named, and both checkpoints written as evidence", async () => {
    const state = tempDir('aa-fork-state');
    const first = await cli(['verify', ...at(truth)], state);
    expect(first.code).toBe(0);
    const r = await cli(['prove', '3', '-o', join(dir, 'from-forged.proof.json'), ...at(forged)], state);
    expect(r.stdout).toMatch(
      /^FORK: the appliance signed two histories: the tree of size 62 is not proven a prefix of the tree of size 67/m,
    );
    expect(r.stdout).toContain('nothing was written');
    expect(r.stderr).toContain('BROKEN OR INCOMPLETE (a fork)');
    expect(r.code).toBe(1);
    const [file] = forks(state);
    const evidence = JSON.parse(readFileSync(join(state, 'appliance-admin', 'forks', file!), 'utf8'));
    expect(evidence.format).toBe('appliance-admin/fork-evidence/v1');
    expect([evidence.seen_before.checkpoint.tree_size, evidence.seen_now.checkpoint.tree_size]).toEqual([62, 67]);
    expect(evidence.seen_before.checkpoint.note).toMatch(/^appliance-admin\/[0-9a-f]{16}\n62\n/);
    // the true appliance still extends what was remembered
    expect((await cli(['verify', ...at(truth)], state)).code).toBe(0);
  });

  it('is caught by a witness, which cosigns the true history and refuses the forged one', async () => {
    const state = tempDir('aa-witness-state');
    const w = ['--witness-key', witnessKey];
    const cosigned = await cli(['witness', ...at(truth), ...w], state);
    expect(cosigned.stdout).toMatch(
      /^cosigned checkpoint #62 of .* \(tree size 62, appliance-admin\/[0-9a-f]{16}\) as witness witness.example\/aude/,
    );
    expect(cosigned.code).toBe(0);
    const refused = await cli(['witness', ...at(forged), ...w], state);
    expect(refused.stdout).toMatch(/^FORK: the appliance signed two histories: .*this witness cosigned \(tree size 62/);
    expect(refused.code).toBe(1);
    expect(forks(state)).toHaveLength(1);
    // the true appliance grows: the witness cosigns again, proven by a consistency proof
    insertAuditBatch(truth.server.db, seed(3, 'later'));
    await seal(truth);
    const again = await cli(['witness', ...at(truth), ...w], state);
    expect(again.stdout).toMatch(
      /it extends the checkpoint cosigned before \(tree size 62\): proven by a consistency proof/,
    );
    expect(again.code).toBe(0);
  });

  it('audit verify --witness requires the cosignature: the true trail has it, the forged one cannot', async () => {
    const pub = ['--witness', `${witnessKey}.pub`];
    const good = await cli(['verify', ...at(truth), ...pub], tempDir('aa-fork-state'));
    expect(good.stdout).toMatch(/^the newest checkpoint is cosigned by witness witness.example\/aude/m);
    expect(good.code).toBe(0);
    const bad = await cli(['verify', ...at(forged), ...pub], tempDir('aa-fork-state'));
    expect(bad.stdout).toMatch(
      /carries no cosignature of witness witness.example\/aude: nothing shows that the witness saw this history/,
    );
    expect(bad.code).toBe(1);
  });

  it("an evidence pack carries the export's head in the signed tree and the witness's cosignature", async () => {
    const pack = join(dir, 'pack');
    const made = await runCli([
      'evidence',
      '--since',
      '30d',
      '-o',
      pack,
      '--url',
      truth.url,
      '--token-file',
      tokens[truth.url]!,
    ]);
    expect(made.code).toBe(0);
    const proof = JSON.parse(readFileSync(join(pack, 'audit-tree.proof.json'), 'utf8'));
    expect(proof.entries).toHaveLength(1);
    const witnessed = JSON.parse(readFileSync(join(pack, 'audit-witnessed.json'), 'utf8'));
    expect(witnessed.checkpoint.note).toMatch(/\n\u2014 witness\.example\/aude /);
    const r = await runCli(['evidence', 'verify', pack, '--key', keyFile]);
    expect(r.stdout).toMatch(/^audit-tree\.proof\.json: the export's head #\d+ is in the signed tree of size \d+/m);
    expect(r.stdout).toMatch(
      /^audit-witnessed\.json: the pack's tree extends the witnessed checkpoint of tree size \d+, cosigned by witness\.example\/aude/m,
    );
    expect(r.code).toBe(0);
    // the witnessed checkpoint swapped for the forged appliance's: not extended by the pack's tree
    const forgedList = (await forged.call('GET', '/audit/checkpoints?limit=1')).json.data[0];
    const manifest = JSON.parse(readFileSync(join(pack, 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f: { name: string }) => f.name)).toContain('audit-witnessed.json');
    writeFileSync(join(pack, 'audit-witnessed.json'), JSON.stringify({ ...witnessed, checkpoint: forgedList }));
    const bad = await runCli(['evidence', 'verify', pack, '--key', keyFile]);
    expect(bad.stdout).toMatch(/audit-witnessed\.json: the pack's tree does not extend the witnessed checkpoint/);
    expect(bad.code).toBe(1);
  });

  it('audit verify --since a proof file proves the trail only grew, by a consistency proof; the fork fails it', async () => {
    const state = tempDir('aa-fork-state');
    const kept = join(dir, 'kept.proof.json');
    expect((await cli(['prove', '10', '-o', kept, ...at(truth)], state)).code).toBe(0);
    insertAuditBatch(truth.server.db, seed(5, 'more'));
    await seal(truth);
    const grown = await cli(['verify', ...at(truth), '--since', kept], state);
    expect(grown.stdout).toMatch(
      /^verified: the trail at tree size \d+ .* extends the kept checkpoint #\d+ \(tree size \d+\): proven by a consistency proof of \d+ hashes, without reading the \d+ entries between/m,
    );
    expect(grown.code).toBe(0);
    const fork = await cli(['verify', ...at(forged), '--since', kept], tempDir('aa-fork-state'));
    expect(fork.stdout).toMatch(/^FORK: the appliance signed two histories/m);
    expect(fork.code).toBe(1);
  });
});
