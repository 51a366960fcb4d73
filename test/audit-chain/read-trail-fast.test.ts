import { describe, expect, it } from 'vitest';
import { readTrail } from '../../src/audit-chain/read-trail.js';
import { HASHED_AS_READ } from '../../src/audit-chain/trail-items.js';
import { verifyTrail } from '../../src/audit-chain/verify-trail.js';
import type { AuditEntry } from '../../src/contract/index.js';
import { canonicalLine, entryHash, GENESIS_HASH } from '../../src/audit-chain/canonical.js';

const NO_KEY = { trust: { keys: new Map(), pinned: false, source: 'no key' } };

/** A chained trail of `count` entries, as the server hashes them. */
function trail(count: number): AuditEntry[] {
  const out: AuditEntry[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const e = {
      id: `aud_${seq}`,
      at: new Date(Date.UTC(2026, 10, 26, 0, 0, seq)).toISOString(),
      actor: { subject: 'alice', role: 'it_admin' as const },
      action: 'gateway.key.revoke',
      target: { type: 'gateway_key', id: `key_${seq}`, name: `k "${seq}" é` },
      outcome: 'success' as const,
      status: 200,
      request_id: `req_${seq}`,
      source_ip: null,
      details: { b: [1, 2.5, 'x'], a: { seq: 99, prev_hash: 'not this one' } },
      seq,
      prev_hash: prev,
    };
    const hash = entryHash(e);
    out.push({ ...e, hash });
    prev = hash;
  }
  return out;
}

const read = async (lines: string[]) => {
  const items = [];
  async function* source() {
    yield `${lines.join('\n')}\n`;
  }
  for await (const batch of readTrail(source())) items.push(...batch);
  return items;
};

describe('reading a JSON Lines export written as the chain hashed it', () => {
  it('hashes each canonical line as it is, with seq and prev_hash taken from the entry, not from its details', async () => {
    const entries = trail(3);
    const items = await read(entries.map(canonicalLine));
    const plain = items.map((i) => {
      const { seq, prev_hash, hash } = i as Record<string, unknown>;
      return { seq, prev_hash, hash };
    });
    expect(plain).toEqual(entries.map((e) => ({ seq: e.seq, prev_hash: e.prev_hash, hash: e.hash })));
    expect(items.every((i) => (i as Record<symbol, unknown>)[HASHED_AS_READ])).toBe(true);
    const report = await verifyTrail([items], NO_KEY);
    expect(report.entries).toBe(3);
    expect(report.findings.filter((f) => f.startsWith('entry'))).toEqual([]);
  });

  it('reads a changed line, or one another writer wrote, the long way: both are found, the second as not canonical', async () => {
    const entries = trail(3);
    const lines = entries.map(canonicalLine);
    lines[1] = lines[1].replace('"status":200', '"status":201');
    lines[2] = JSON.stringify(entries[2]); // another key order: its contents hash right, but it is not the line
    const items = await read(lines);
    expect((items[1] as Record<symbol, unknown>)[HASHED_AS_READ]).toBeUndefined();
    expect((items[2] as Record<symbol, unknown>)[HASHED_AS_READ]).toBeUndefined();
    const report = await verifyTrail([items], NO_KEY);
    expect(report.findings.filter((f) => f.startsWith('entry'))).toEqual([
      'entry #2: hash does not match its contents',
      'entry #3: its contents hash right, but the line is not their canonical text (re-encoded, a duplicate key, ' +
        'spacing or escapes): only the line the appliance wrote verifies',
    ]);
  });
});
