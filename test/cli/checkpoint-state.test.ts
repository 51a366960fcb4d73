import { createPublicKey } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consistencyProof } from '../../src/audit-chain/merkle.js';
import { verifyTreeCheckpoint, type SignedTree, type TreeCheckpoint } from '../../src/audit-chain/tree-checkpoint.js';
import { CheckpointState, stateDir } from '../../src/cli/checkpoint-state.js';
import { checkRemembered, type ConsistencySource } from '../../src/cli/remembered-check.js';
import { chainedTrail, rehash, signingKey, type Entry } from '../helpers/audit-chain.js';
import { tempDir } from '../helpers/fixtures.js';
import { treeCheckpoint, treeOf } from '../helpers/tree-fixture.js';

const key = signingKey();
const trust = { keys: new Map([[key.fingerprint, createPublicKey(key.publicKeyPem)]]), pinned: true, source: 'pinned' };
const trail = chainedTrail(60);
const forked = rehash([...trail.slice(0, 30), ...trail.slice(30).map((e) => ({ ...e, status: 418 }))]);
const signed = (c: TreeCheckpoint): SignedTree => {
  const r = verifyTreeCheckpoint(c, trust);
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.tree;
};
const at = (entries: Entry[], size: number) => signed(treeCheckpoint(entries, size, key));
/** an appliance serving `entries`: its consistency proofs, as the route answers them */
const served =
  (entries: Entry[]): ConsistencySource =>
  async (from, to) => {
    if (to > entries.length) return null;
    const path = consistencyProof(treeOf(entries).nodes, from, to);
    return { path, served: path.map((b) => b.toString('hex')) };
  };
const fresh = () => new CheckpointState({ XDG_STATE_HOME: tempDir('aa-state') });

describe('the remembered checkpoint (XDG state), checked on every run', () => {
  it('lives under $XDG_STATE_HOME/appliance-admin, else ~/.local/state', () => {
    expect(stateDir({ XDG_STATE_HOME: '/x/state', HOME: '/home/a' })).toBe('/x/state/appliance-admin');
    expect(stateDir({ XDG_STATE_HOME: 'relative', HOME: '/home/a' })).toBe('/home/a/.local/state/appliance-admin');
  });

  it('remembers the first checkpoint, then one that extends it, proven by a consistency proof', async () => {
    const state = fresh();
    const first = await checkRemembered(state, at(trail, 20), trust, served(trail));
    expect(first).toEqual({ findings: [], unknowns: [], notes: [], forks: [] });
    expect(statSync(state.fileOf(key.fingerprint)).mode & 0o777).toBe(0o600);
    const next = await checkRemembered(state, at(trail, 50), trust, served(trail));
    expect(next.findings).toEqual([]);
    expect(next.notes[0]).toMatch(
      /^it extends the checkpoint remembered from an earlier run \(tree size 20 .*consistency proof of \d+ hashes/,
    );
    expect(JSON.parse(readFileSync(state.fileOf(key.fingerprint), 'utf8')).checkpoint.tree_size).toBe(50);
  });

  it('a fork (another history signed by the same key) is refused, named, and both checkpoints written', async () => {
    const state = fresh();
    await checkRemembered(state, at(trail, 45), trust, served(trail));
    const r = await checkRemembered(state, at(forked, 55), trust, served(forked));
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatch(
      /^FORK: the appliance signed two histories: the tree of size 45 is not proven a prefix/,
    );
    expect(r.forks).toHaveLength(1);
    const evidence = JSON.parse(readFileSync(r.forks[0]!, 'utf8'));
    expect(evidence.seen_before.checkpoint.tree_size).toBe(45);
    expect(evidence.seen_now.checkpoint.tree_size).toBe(55);
    expect(readdirSync(join(state.dir, 'forks'))).toHaveLength(1);
    // the fork is not remembered: the next run against the true appliance still extends the first
    expect(JSON.parse(readFileSync(state.fileOf(key.fingerprint), 'utf8')).checkpoint.tree_size).toBe(45);
    expect((await checkRemembered(state, at(trail, 60), trust, served(trail))).findings).toEqual([]);
  });

  it('a newest checkpoint older than the remembered one is a cut; offline, only the same size compares', async () => {
    const state = fresh();
    await checkRemembered(state, at(trail, 45), trust, served(trail));
    const cut = await checkRemembered(state, at(trail, 40), trust, served(trail));
    expect(cut.findings[0]).toMatch(
      /newest checkpoint \(tree size 40\) is older than one it signed before \(tree size 45/,
    );
    const offline = await checkRemembered(state, at(forked, 45), trust, null);
    expect(offline.findings[0]).toMatch(/^FORK: .*two signed checkpoints of tree size 45 have different roots/);
    const otherSize = await checkRemembered(state, at(trail, 50), trust, null);
    expect(otherSize.findings).toEqual([]);
    expect(otherSize.notes[0]).toMatch(/checked on the next run against the appliance/);
    expect(JSON.parse(readFileSync(state.fileOf(key.fingerprint), 'utf8')).checkpoint.tree_size).toBe(45);
  });

  it('a state file edited, oversized or not a file could not be checked, and is said so; it is not replaced', async () => {
    const state = fresh();
    await checkRemembered(state, at(trail, 45), trust, served(trail));
    const file = state.fileOf(key.fingerprint);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"tree_size": 45', '"tree_size": 44'));
    const r = await checkRemembered(state, at(trail, 50), trust, served(trail));
    expect(r.unknowns[0]).toMatch(
      /remembered in .* is unusable: .*its note signs another tree size or root than it says; remove it/,
    );
    writeFileSync(file, 'x'.repeat(2 * 1024 * 1024));
    expect((await checkRemembered(state, at(trail, 50), trust, served(trail))).unknowns[0]).toMatch(/larger than/);
    const dirState = fresh();
    mkdirSync(dirState.fileOf(key.fingerprint), { recursive: true });
    expect((await checkRemembered(dirState, at(trail, 50), trust, served(trail))).unknowns[0]).toMatch(
      /not a regular file/,
    );
  });
});
