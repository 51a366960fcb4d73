import { describe, expect, it } from 'vitest';
import { canonicalLine, entryHash, GENESIS_HASH } from '../../src/audit-chain/canonical.js';
import { readTrail, type SyslogCopyInfo } from '../../src/audit-chain/read-trail.js';
import { parseSyslogLine } from '../../src/audit-chain/syslog-copy.js';
import { Unreadable, type TrailItem } from '../../src/audit-chain/trail-items.js';
import { checkpointsOfCopy } from '../../src/audit-chain/syslog-checkpoints.js';
import type { Trust } from '../../src/audit-chain/verify-trail.js';
import { framedCheckpoint, framedMessage, headerParts } from '../../src/server/audit-forward/syslog-message.js';
import { createPublicKey } from 'node:crypto';
import { checkpointOf, signingKey, type Entry } from '../helpers/audit-chain.js';
import { treeCheckpoint } from '../helpers/tree-fixture.js';

/** Reading a syslog receiver's copy of the trail: RFC 5424 lines whose MSG is the export's line. */

function chain(count: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const e: Record<string, unknown> = {
      id: `aud_${seq}`,
      at: `2026-11-26T09:30:0${seq % 10}Z`,
      actor: { subject: 'alice', role: 'it_admin' },
      action: 'gateway.key.create',
      target: { type: 'gateway_key', id: `key_${seq}`, name: 'x] "y" \\z' },
      outcome: 'success',
      status: 201,
      request_id: `req_${seq}`,
      source_ip: null,
      details: { seq },
      seq,
      prev_hash: prev,
    };
    e.hash = prev = entryHash(e);
    out.push(e);
  }
  return out;
}

const parts = headerParts({ facility: 10, hostname: 'appliance-01', procid: '42' });
/** The line a receiver writes of a framed message: the message without its length. */
const lineOf = (e: Record<string, unknown>) =>
  framedMessage(parts, e.at as string, e.seq as number, e.hash as string, canonicalLine(e)).replace(/^\d+ /, '');

/** A checkpoint's line, as the server frames it (the message without its length). */
const checkpointLine = (c: { seq: number; at: string; tree_size?: number | null }) =>
  framedCheckpoint(parts, { ...c, tree_size: c.tree_size ?? null }, JSON.stringify(c)).replace(/^\d+ /, '');
const chunksOf = (lines: string[]) =>
  (async function* () {
    yield Buffer.from(`${lines.join('\n')}\n`);
  })();

async function read(lines: string[], upTo?: number) {
  const info: { value?: 'jsonl' | 'csv'; syslog?: SyslogCopyInfo; upTo?: number } = { upTo };
  const items: TrailItem[] = [];
  const chunks = (async function* () {
    yield Buffer.from(`${lines.join('\n')}\n`);
  })();
  for await (const batch of readTrail(chunks, info)) items.push(...batch);
  return { items, info };
}

describe('a syslog copy of the audit trail', () => {
  it('frames each message by its length in bytes, and its MSG is the export line', () => {
    const [e] = chain(1);
    const framed = framedMessage(parts, e.at as string, 1, e.hash as string, canonicalLine(e));
    const [len, ...rest] = framed.split(' ');
    expect(Number(len)).toBe(Buffer.byteLength(rest.join(' ')));
    expect(framed).toContain(`<85>1 ${e.at as string} appliance-01 appliance-admin 42 audit [aa-audit@32473 seq="1"`);
    expect(parseSyslogLine(Buffer.from(lineOf(e)))?.msg.toString()).toBe(canonicalLine(e));
  });

  it('reads MSG past structured data with escaped characters, NILVALUE and a byte order mark', () => {
    const sd = parseSyslogLine(Buffer.from('<13>1 - host app - id [a@1 x="q\\"]\\\\" y="]"][b@2] hello world'));
    expect(sd).toMatchObject({ appName: 'app', msgId: 'id' });
    expect(sd?.msg.toString()).toBe('hello world');
    const bom = parseSyslogLine(
      Buffer.concat([Buffer.from('<13>1 - h a p m - '), Buffer.from([0xef, 0xbb, 0xbf, 0x41])]),
    );
    expect(bom?.msg.toString()).toBe('A');
    expect(parseSyslogLine(Buffer.from('<13>1 - h a p m [unclosed x="]'))).toBeNull();
    expect(parseSyslogLine(Buffer.from('Nov 29 08:00:00 host app: hello'))).toBeNull();
  });

  it('yields each entry once, skips other senders, stops at upTo and names a second entry for one seq', async () => {
    const entries = chain(6);
    const lines = entries.map(lineOf);
    const foreign = '<46>1 2026-11-26T09:30:00Z host rsyslogd - - - [origin software="rsyslogd"] start';
    const other: Record<string, unknown> = { ...entries[4], details: { seq: 'forged' } };
    other.hash = entryHash(other);
    const key = signingKey();
    const { items, info } = await read(
      [
        foreign,
        ...lines.slice(0, 4),
        checkpointLine(checkpointOf(entries[3] as Entry, key)),
        ...lines.slice(1, 5),
        lineOf(other),
        lines[5],
      ],
      5,
    );
    const seqs = items.filter((i) => !(i instanceof Unreadable)).map((i) => (i as { seq: number }).seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    // the checkpoint's line is the appliance's, read apart (checkpointsOfCopy), not another sender's
    expect(info.syslog).toEqual({ repeats: 3, beyond: 1, foreign: 1, checkpoints: 1 });
    const findings = items.filter((i): i is Unreadable => i instanceof Unreadable).map((u) => u.reason);
    expect(findings).toEqual([
      'entry #5 is there again with another hash: two different entries claim one place in the trail',
    ]);
  });

  it('does not pass off a changed repeat as the entry sent again', async () => {
    const entries = chain(2);
    const changed = lineOf(entries[1]).replace('alice', 'alicE');
    const { items } = await read([...entries.map(lineOf), changed]);
    expect(items.at(-1)).toBeInstanceOf(Unreadable);
    expect((items.at(-1) as Unreadable).reason).toContain('does not hash to its hash: it was changed');
  });

  it("reads the copy's checkpoints: the newest that verifies proves it; a changed one or a second history is named", async () => {
    const entries = chain(8) as Entry[];
    const key = signingKey();
    const trust: Trust = {
      keys: new Map([[key.fingerprint, createPublicKey(key.publicKeyPem)]]),
      pinned: true,
      source: 'the key you pinned',
    };
    const c3 = checkpointOf(entries[2], key, '2026-11-26T09:31:00.000Z');
    const c6 = treeCheckpoint(entries, 6, key);
    const c8 = checkpointOf(entries[7], key, '2026-11-26T09:32:00.000Z');
    const lines = [
      ...entries.slice(0, 3).map(lineOf),
      checkpointLine(c3),
      ...entries.slice(3, 6).map(lineOf),
      checkpointLine(c6),
      checkpointLine(c6), // sent again after a restart: the same checkpoint
      ...entries.slice(6).map(lineOf),
    ];
    const good = await checkpointsOfCopy(chunksOf(lines), trust);
    expect(good).toMatchObject({ count: 3, untrusted: 0, findings: [] });
    expect(good.newest).toMatchObject({ seq: 6, tree_size: 6, note: c6.note });
    expect(good.signed.map((c) => c.seq)).toEqual([3, 6]);
    // another key's checkpoint proves nothing to this key, and is no finding: set aside
    const other = checkpointOf(entries[7], signingKey());
    const withOther = await checkpointsOfCopy(chunksOf([...lines, checkpointLine(other)]), trust);
    expect(withOther).toMatchObject({ count: 4, untrusted: 1, findings: [] });
    expect(withOther.newest?.seq).toBe(6);
    // the newest, its time changed in the copy: named, and the one before it proves the copy
    const changed = checkpointLine(c8).replace('"at":"2026-11-26T09:32:00.000Z"', '"at":"2026-11-26T09:33:00.000Z"');
    const r = await checkpointsOfCopy(chunksOf([...lines, changed]), trust);
    expect(r.findings).toEqual([
      'line 12: the checkpoint #8 of 2026-11-26T09:33:00.000Z does not verify with the key you pinned: it was changed in the copy',
    ]);
    expect(r.newest?.seq).toBe(6);
    // a note changed while its JSON stays: the note must verify too
    const badNote = { ...c6, note: c6.note.replace(/\n6\n/, '\n7\n') };
    expect((await checkpointsOfCopy(chunksOf([checkpointLine(badNote)]), trust)).findings[0]).toMatch(
      /line 1: the checkpoint #6 .* does not verify with the key you pinned/,
    );
    // two signed checkpoints of one entry with different hashes: the key signed two histories
    const fork = checkpointOf({ ...entries[2], hash: 'ab'.repeat(32) }, key, '2026-11-26T09:34:00.000Z');
    const forked = await checkpointsOfCopy(chunksOf([...lines, checkpointLine(fork)]), trust);
    expect(forked.findings[0]).toMatch(
      /two checkpoints signed for entry #3 with different hashes \(2026-11-26T09:31:00.000Z, 2026-11-26T09:34:00.000Z\): the appliance signed two histories/,
    );
    // without a key nothing verifies: the newest is handed on, for the verifier to say it cannot check it
    const keyless = await checkpointsOfCopy(chunksOf(lines), { keys: new Map(), pinned: false, source: 'no key' });
    expect(keyless).toMatchObject({ untrusted: 3, signed: [] });
    expect(keyless.newest?.seq).toBe(6);
  });
});
