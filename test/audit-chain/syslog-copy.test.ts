import { describe, expect, it } from 'vitest';
import { canonicalLine, entryHash, GENESIS_HASH } from '../../src/audit-chain/canonical.js';
import { readTrail, type SyslogCopyInfo } from '../../src/audit-chain/read-trail.js';
import { parseSyslogLine } from '../../src/audit-chain/syslog-copy.js';
import { Unreadable, type TrailItem } from '../../src/audit-chain/trail-items.js';
import { framedMessage, headerParts } from '../../src/server/audit-forward/syslog-message.js';

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
    const { items, info } = await read(
      [foreign, ...lines.slice(0, 4), ...lines.slice(1, 5), lineOf(other), lines[5]],
      5,
    );
    const seqs = items.filter((i) => !(i instanceof Unreadable)).map((i) => (i as { seq: number }).seq);
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
    expect(info.syslog).toEqual({ repeats: 3, beyond: 1, foreign: 1 });
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
});
