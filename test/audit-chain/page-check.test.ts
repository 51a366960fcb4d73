import { describe, expect, it } from 'vitest';
import { checkChain } from '../../src/audit-chain/page-check.js';
import { keepCheckpoint, memoryOf } from '../../src/audit-chain/memory.js';
import { chainedTrail, checkpointOf, signingKey, type Entry, type SigningKey } from '../helpers/audit-chain.js';
import { treeCheckpoint } from '../helpers/tree-fixture.js';

/**
 * The dashboard's page check (src/audit-chain/page-check.ts) on answers made straight from the
 * scheme. Each test signs with a key of its own: what the check keeps is kept per appliance (by its
 * served keys) for the whole process.
 */
const listOf = (checkpoints: unknown[], key: SigningKey) => ({
  data: checkpoints,
  public_keys: [{ public_key_pem: key.publicKeyPem }],
});
const newestFirst = (trail: Entry[]) => [...trail].reverse();

describe('the page check keeps only a checkpoint whose signature verified', () => {
  it('a checkpoint with a bad signature is a break, and is not kept', () => {
    const key = signingKey();
    const trail = chainedTrail(10);
    const good = checkpointOf(trail[9], key);
    const forged = { ...good, signature: checkpointOf(trail[8], key).signature };
    const check = checkChain(newestFirst(trail), listOf([forged], key), { whole: true });
    expect(check).toMatchObject({ ok: false, seq: 10, finding: expect.stringContaining('signature does not verify') });
    expect(memoryOf([key.fingerprint]).kept).toBeNull();
    // the same checkpoint, signed: kept
    expect(checkChain(newestFirst(trail), listOf([good], key), { whole: true })).toMatchObject({ ok: true });
    expect(memoryOf([key.fingerprint]).kept).toMatchObject({ seq: 10, hash: trail[9].hash });
  });

  it('signed by a key the appliance does not serve: a break, not kept', () => {
    const [key, other] = [signingKey(), signingKey()];
    const trail = chainedTrail(5);
    const check = checkChain(newestFirst(trail), listOf([checkpointOf(trail[4], other)], key), { whole: true });
    expect(check).toMatchObject({ ok: false, finding: expect.stringContaining('serves no public key') });
    expect(memoryOf([key.fingerprint]).kept).toBeNull();
  });
});

describe('a pinned key file (one or more PEM keys)', () => {
  it('the checkpoint verifies with one of the pinned keys, whatever the appliance serves', () => {
    const [old, current] = [signingKey(), signingKey()];
    const trail = chainedTrail(6);
    const list = listOf([checkpointOf(trail[5], current)], current);
    const pinnedPem = old.publicKeyPem + current.publicKeyPem;
    expect(checkChain(newestFirst(trail), list, { whole: true, pinnedPem })).toMatchObject({ ok: true, pinned: true });
    expect(checkChain(newestFirst(trail), list, { whole: true })).toMatchObject({ ok: true, pinned: false });
  });

  it('a checkpoint signed by a served key that is not pinned is a break', () => {
    const [served, pinned] = [signingKey(), signingKey()];
    const trail = chainedTrail(4);
    const check = checkChain(newestFirst(trail), listOf([checkpointOf(trail[3], served)], served), {
      whole: true,
      pinnedPem: pinned.publicKeyPem,
    });
    expect(check).toMatchObject({ ok: false, finding: expect.stringContaining('not the audit key pinned') });
  });

  it('a pinned file with no usable key: not checked, which is not a break', () => {
    const key = signingKey();
    const trail = chainedTrail(3);
    const check = checkChain(newestFirst(trail), listOf([checkpointOf(trail[2], key)], key), {
      whole: true,
      pinnedPem: '-----BEGIN PUBLIC KEY-----\nbm9uZQ==\n-----END PUBLIC KEY-----\n',
    });
    expect(check).toMatchObject({
      ok: false,
      unchecked: true,
      finding: 'the pinned audit key file is not a PEM public key',
    });
  });
});

describe('a checkpoint kept by V (the head its export signed)', () => {
  it('a checkpoint list read before it was kept does not read as the checkpoints removed; a list read after does', () => {
    const key = signingKey();
    const trail = chainedTrail(8);
    const page = newestFirst(trail.slice(0, 7));
    const before = listOf([], key); // polled before V: the appliance had signed nothing yet
    expect(checkChain(page, before, { whole: true })).toMatchObject({ ok: true, checkpoint: null });
    // V verified the trail to #8 and keeps the head its export signed
    keepCheckpoint(memoryOf([key.fingerprint]), checkpointOf(trail[7], key));
    expect(checkChain(page, before, { whole: true })).toMatchObject({ ok: true });
    // a list read since that lists no checkpoint, or an older one: the appliance removed it
    expect(checkChain(page, listOf([], key), { whole: true })).toMatchObject({
      ok: false,
      seq: 8,
      finding: expect.stringContaining('its checkpoints were removed'),
    });
    expect(checkChain(page, listOf([checkpointOf(trail[6], key)], key), { whole: true })).toMatchObject({
      ok: false,
      finding: expect.stringContaining('the trail was cut since'),
    });
    // the kept entry on the page with another hash is a break whenever the list was read
    const rewritten = newestFirst(chainedTrail(8, (i) => (i === 8 ? { changed: true } : {})));
    expect(checkChain(rewritten, before, { whole: true })).toMatchObject({
      ok: false,
      finding: expect.stringContaining('the trail was rewritten since'),
    });
  });
});

describe('the kept checkpoint carries its tree, for the consistency proof that moves it on', () => {
  it('the checkpoint as served is kept with its note; a head V kept without one takes it when the list serves it', () => {
    const key = signingKey();
    const trail = chainedTrail(12);
    const t10 = treeCheckpoint(trail, 10, key);
    checkChain(newestFirst(trail.slice(0, 10)), listOf([t10], key), { whole: true });
    expect(memoryOf([key.fingerprint]).kept).toMatchObject({ seq: 10, tree_size: 10, note: t10.note });
    // V keeps the head its export signed (the header's five fields): then the list's same checkpoint gives its tree
    const t12 = treeCheckpoint(trail, 12, key);
    keepCheckpoint(memoryOf([key.fingerprint]), checkpointOf(trail[11], key, t12.at));
    expect(memoryOf([key.fingerprint]).kept).not.toHaveProperty('note');
    expect(checkChain(newestFirst(trail), listOf([t12], key), { whole: true })).toMatchObject({ ok: true });
    expect(memoryOf([key.fingerprint]).kept).toMatchObject({ seq: 12, tree_size: 12, note: t12.note });
  });
});
