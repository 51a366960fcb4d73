import { createPublicKey } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { verifyTrail, type Trust, type VerifyOptions } from '../../src/audit-chain/verify-trail.js';
import { readTrail, type TrailFormat } from '../../src/audit-chain/read-trail.js';
import { canonicalLine } from '../../src/audit-chain/canonical.js';
import { csvLine } from '../../src/server/governance/csv.js';
import {
  chainedTrail,
  checkpointOf,
  entryHash,
  jsonl,
  rehash,
  signingKey,
  statementOf,
  type Entry,
  type SigningKey,
} from '../helpers/audit-chain.js';
import { AUDIT_CSV_HEADER } from '../helpers/audit-csv.js';

const key = signingKey();
const trustOf = (k: SigningKey, pinned = true): Trust => ({
  keys: new Map([[k.fingerprint, createPublicKey(k.publicKeyPem)]]),
  pinned,
  source: pinned ? 'the key you pinned' : 'the keys the appliance serves',
});
const pinned = trustOf(key);
const trail = chainedTrail(40, (i) => (i % 6 ? { format: 'csv', filters: { action: 'x' } } : {}));
const withHash = (e: Entry): Entry => ({ ...e, hash: entryHash(e) });
const whole = statementOf(trail, key);
/** Lines as the appliance writes them: each entry's canonical text, its hash last. */
const lines = (entries: Entry[]) => entries.map((e) => `${canonicalLine(e)}\n`).join('');

const verifyText = (text: string, o: Partial<VerifyOptions> = {}) => {
  const format: { value?: TrailFormat } = {};
  return verifyTrail(readTrail(Readable.from([text]), format), { trust: pinned, format, ...o });
};
const verifyEntries = (entries: Entry[], o: Partial<VerifyOptions> = {}) =>
  verifyText(lines(entries), { statement: whole as never, ...o });

describe('verifyTrail against a signed statement (JSON Lines)', () => {
  it('an untouched trail verifies: the whole trail, complete and unaltered, with the pinned key', async () => {
    const r = await verifyEntries(trail);
    expect(r).toMatchObject({ verdict: 'verified', entries: 40, firstSeq: 1, lastSeq: 40, findings: [], unknowns: [] });
    expect(r.proven).toMatch(/^the whole trail, entries #1–#40 \(40\), complete and unaltered; signed by key SHA256:/);
  });

  it('the same with keys the appliance served: verified, but not pinned', async () => {
    const r = await verifyEntries(trail, { trust: trustOf(key, false) });
    expect(r.verdict).toBe('verified-unpinned');
    expect(r.proven).toMatch(/not pinned$/);
  });

  it('finds an entry whose contents changed, and missing entries by range', async () => {
    const changed = trail.map((e) => (e.seq === 22 ? { ...e, outcome: 'denied' } : e));
    expect((await verifyEntries(changed)).findings).toEqual(['entry #22: hash does not match its contents']);
    const r = await verifyEntries(trail.filter((e) => e.seq < 21 || e.seq > 23));
    expect(r.findings).toEqual(['entries #21–#23 missing (3)', 'the file holds 37 entries, the appliance signed 40']);
    expect(r.verdict).toBe('broken');
  });

  it('finds a re-hashed entry by its successor no longer linking', async () => {
    const forged = trail.map((e) => (e.seq === 10 ? withHash({ ...e, outcome: 'denied' }) : e));
    expect((await verifyEntries(forged)).findings).toEqual(['entry #11: prev_hash does not link to #10']);
  });

  it('finds two entries swapped in the file', async () => {
    const swapped = [...trail];
    [swapped[4], swapped[5]] = [swapped[5], swapped[4]];
    const r = await verifyEntries(swapped);
    expect(r.verdict).toBe('broken');
    expect(r.findings).toContain('entry #5 is out of order: it comes after #6');
  });

  it('finds a cut tail against the signed statement', async () => {
    const r = await verifyEntries(trail.slice(0, 30));
    expect(r.findings).toEqual([
      'the file holds 30 entries, the appliance signed 40',
      'the file ends at #30 but the appliance signed #40 as its last (the tail is cut)',
    ]);
  });

  it('a consistently re-hashed forgery: its statement is not signed by the pinned key', async () => {
    const forged = rehash(trail.map((e) => (e.seq === 3 ? { ...e, actor: { subject: 'mallory', role: null } } : e)));
    const forger = signingKey();
    const r = await verifyEntries(forged, { statement: statementOf(forged, forger) as never });
    expect(r.verdict).toBe('broken');
    expect(r.findings[0]).toMatch(/^the export's signed statement is signed by key SHA256:.*, not the key you pinned/);
    // the appliance's own signature over the real statement does not fit the forged file
    expect((await verifyEntries(forged)).verdict).toBe('broken');
  });

  it('unsigned scope is not believed: a statement edited to claim a filter no longer verifies', async () => {
    // issue 36 §3: cut the last 200 entries and add an end_time filter to the statement file
    const edited = {
      ...whole,
      statement: { ...whole.statement, filters: { end_time: '2099-01-01T00:00:00Z' }, count: 30, last_seq: 30 },
    };
    const r = await verifyEntries(trail.slice(0, 30), { statement: edited as never });
    expect(r.verdict).toBe('broken');
    expect(r.findings[0]).toMatch(/signature does not verify .*: it was changed after signing/);
  });

  it('no statement at all: cannot be proven complete (broken), whatever the entries', async () => {
    const r = await verifyText(lines(trail));
    expect(r.verdict).toBe('broken');
    expect(r.findings[0]).toMatch(/^no signed statement: nothing the appliance signed says what this file holds/);
  });

  it('no key to check with: could not check', async () => {
    const r = await verifyEntries(trail, { trust: { keys: new Map(), pinned: false, source: 'no key' } });
    expect(r.verdict).toBe('cannot-check');
    expect(r.unknowns[0]).toMatch(/^no public key to check/);
  });

  it("an older export's checkpoint alone proves a whole trail, and nothing less", async () => {
    const cp = checkpointOf(trail[39], key);
    expect((await verifyText(lines(trail), { checkpoint: cp })).verdict).toBe('verified');
    const r = await verifyText(lines(trail.slice(10)), { checkpoint: cp });
    expect(r.verdict).toBe('broken');
    expect(r.findings).toContain('the file starts at #11: entries #1–#10 missing (10)');
  });

  it('a kept checkpoint must be signed: one edited to a forged hash is refused', async () => {
    const forged = rehash(trail.map((e) => (e.seq === 3 ? { ...e, outcome: 'failed' } : e)));
    const kept = checkpointOf(trail[19], key);
    // issue 36 §6: the forger edits the kept checkpoint's hash to the forged one
    const edited = { ...kept, hash: forged[19].hash };
    const forger = signingKey();
    const r = await verifyEntries(forged, {
      statement: statementOf(forged, forger) as never,
      trust: trustOf(forger, false),
      since: edited,
    });
    expect(r.verdict).toBe('broken');
    expect(r.findings.join('\n')).toMatch(/the kept checkpoint #20 is signed by key SHA256:.*not among/);
  });

  it('with a kept checkpoint: a forgery is found despite a valid new signature; a grown trail passes', async () => {
    const kept = checkpointOf(trail[19], key);
    const forged = rehash(trail.map((e) => (e.seq === 3 ? { ...e, outcome: 'failed' } : e)));
    const r = await verifyEntries(forged, { statement: statementOf(forged, key) as never, since: kept });
    expect(r.findings).toEqual([
      'entry #20 is no longer what the kept checkpoint recorded: the trail was rewritten since',
    ]);
    const cut = trail.slice(0, 15);
    const later = statementOf(cut, key, { at: '2026-11-27T00:00:00Z' });
    expect((await verifyEntries(cut, { statement: later as never, since: kept })).findings).toEqual([
      "the appliance's head is #15 (2026-11-27T00:00:00Z), but it signed #20 earlier (2026-11-26T12:00:00Z, " +
        'the kept checkpoint): the trail was cut since',
    ]);
    expect((await verifyEntries(trail, { since: kept })).verdict).toBe('verified');
  });

  it('only the canonical line verifies: a duplicate key that JSON.parse drops is found', async () => {
    // issue 36 §7: a second actor, which first-wins readers take, the verifier's parser drops
    const l = canonicalLine(trail[6]);
    const dup = `{"actor":{"role":null,"subject":"mallory"},${l.slice(1)}`;
    const text = lines(trail).replace(`${l}\n`, `${dup}\n`);
    const r = await verifyText(text, { statement: whole as never });
    expect(r.verdict).toBe('broken');
    expect(r.findings).toEqual([
      'entry #7: its contents hash right, but the line is not their canonical text (re-encoded, a duplicate key, ' +
        'spacing or escapes): only the line the appliance wrote verifies',
    ]);
    // JSON.stringify's own order (another tool's re-encoding) is not the canonical line either
    const reencoded = lines(trail).replace(`${l}\n`, `${JSON.stringify(trail[6])}\n`);
    expect((await verifyText(reencoded, { statement: whole as never })).verdict).toBe('broken');
  });

  it('a filtered export verifies its signed selection, and says it does not show the trail around it', async () => {
    const some = trail.filter((e) => e.seq % 3 === 0);
    const s = statementOf(some, key, { head: trail[39], filters: { action: 'x' } });
    const r = await verifyEntries(some, { statement: s as never });
    expect(r.verdict).toBe('verified');
    expect(r.proven).toMatch(/^the 13 entries the appliance selected up to #40 \(filters: action="x"\), all present/);
    expect(r.notes[0]).toMatch(/^a filtered export: the entries between those selected are not in it/);
    // one entry replaced by another with a hash of its own: the signed digest no longer holds
    const altered = some.map((e) => (e.seq === 9 ? withHash({ ...e, status: 500 }) : e));
    const r2 = await verifyEntries(altered, { statement: s as never });
    expect(r2.findings).toEqual([
      'the entries are not those the appliance selected: their hashes do not give the signed digest',
    ]);
    // one removed
    const r3 = await verifyEntries(
      some.filter((e) => e.seq !== 12),
      { statement: s as never },
    );
    expect(r3.findings[0]).toBe('the file holds 12 entries, the appliance signed 13');
  });

  it('a time-range export is a run of the trail: a gap or a broken link inside it is found', async () => {
    const run = trail.filter((e) => e.seq >= 5);
    const s = statementOf(run, key, { filters: { start_time: '2026-11-01T00:00:05Z' } });
    const clean = await verifyEntries(run, { statement: s as never });
    expect(clean.verdict).toBe('verified');
    expect(clean.proven).toMatch(/^every entry from 2026-11-01T00:00:05Z to the head \(#40\), entries #5–#40/);
    expect(clean.notes).toEqual(['a time range: whether entries before #5 were removed is not part of this export']);
    const gap = await verifyEntries(
      run.filter((e) => e.seq !== 20),
      { statement: s as never },
    );
    expect(gap.findings[0]).toBe('entry #20 missing');
    // the last entry replaced by another with a hash of its own: it is not the one the appliance signed
    const bounded = trail.filter((e) => e.seq >= 5 && e.seq <= 30);
    const sb = statementOf(bounded, key, { head: trail[39], filters: { start_time: 'a', end_time: 'b' } });
    const swapped = bounded.map((e) => (e.seq === 30 ? withHash({ ...e, status: 500 }) : e));
    expect((await verifyEntries(swapped, { statement: sb as never })).findings).toEqual([
      'entry #30 is not what the appliance signed (hash ' +
        swapped[25].hash.slice(0, 12) +
        '…, signed ' +
        bounded[25].hash.slice(0, 12) +
        '…)',
    ]);
  });

  it('what was asked for: a statement for another export (a proxy narrowing it) is refused', async () => {
    const some = trail.filter((e) => e.seq !== 7);
    const s = statementOf(some, key, { head: trail[39], filters: { actor: 'alice-admin' } });
    const r = await verifyEntries(some, { statement: s as never, asked: {} });
    expect(r.findings[0]).toBe(
      'the appliance\'s signed statement is for another export (filters: actor="alice-admin"), not the one asked ' +
        'for (filters: none)',
    );
  });

  it('a file holding more than was signed is not read to its end', async () => {
    const s = statementOf(trail.slice(0, 10), key);
    async function* endless() {
      for (let i = 0; ; i++) yield `${canonicalLine(trail[i % 40])}\n`;
    }
    const r = await verifyTrail(readTrail(endless()), { statement: s as never, trust: pinned });
    expect(r.verdict).toBe('broken');
    expect(r.findings).toContain('the file holds more entries than the 10 the appliance signed (read no further)');
  });

  it('names lines that are not entries', async () => {
    const text = lines(trail).replace(`${canonicalLine(trail[1])}\n`, 'not json\n[1]\n');
    const r = await verifyText(text, { statement: whole as never });
    expect(r.findings.slice(0, 3)).toEqual(['line 2: not JSON', 'line 3: not a JSON object', 'entry #2 missing']);
  });

  it('lists at most 100 single-entry findings, then counts the rest', async () => {
    const many = chainedTrail(300).map((e) => ({ ...e, status: 201 }));
    const r = await verifyText(jsonl(many), { statement: statementOf(many, key) as never });
    expect(r.findings[100]).toBe('… and 200 more findings like those above');
  });
});

function csv(entries: Entry[]): string {
  const rows = entries.map((e) => {
    const a = e.actor as Record<string, unknown>;
    const t = e.target as Record<string, unknown>;
    return csvLine([
      e.id,
      e.at,
      a.subject,
      a.role,
      e.action,
      t.type,
      t.id,
      e.outcome,
      e.status,
      e.request_id,
      e.source_ip,
      JSON.stringify(e.details),
      t.name,
      e.seq,
      e.prev_hash,
      e.hash,
    ] as never[]);
  });
  return csvLine(AUDIT_CSV_HEADER) + rows.join('');
}

describe('verifyTrail (CSV, as the server writes it)', () => {
  const tricky = rehash(
    chainedTrail(12, (i) => ({ note: i === 4 ? 'line one\r\nline "two", three' : 'x' })).map((e) =>
      e.seq === 5
        ? { ...e, target: { type: 'gateway_key', id: '', name: '=1+1' } }
        : e.seq === 6
          ? { ...e, actor: { subject: "'=quoted", role: null } }
          : e,
    ),
  );
  const csvStatement = statementOf(tricky, key, { format: 'csv' });

  it('verifies a CSV export, reading empty cells and formula guards either way', async () => {
    const r = await verifyText(csv(tricky), { statement: csvStatement as never });
    expect(r).toMatchObject({ verdict: 'verified', entries: 12, findings: [] });
  });

  it('a cell whose formula guard was removed is not the record the appliance wrote', async () => {
    // issue 36 §7: `'=1+1` with its guard removed still hashes right when read as =1+1
    const text = csv(tricky).replace(",'=1+1,", ',=1+1,');
    const r = await verifyText(text, { statement: csvStatement as never });
    expect(r.findings).toEqual([
      "entry #5: its contents hash right, but its target.name cell is not what the appliance wrote (the formula guard ' was removed)",
    ]);
  });

  it('finds a changed cell and a deleted row', async () => {
    const s = statementOf(trail, key, { format: 'csv' });
    const text = csv(trail)
      .replace(`,${trail[6].request_id},`, ',req-forged,')
      .replace(csv([trail[30]]).split('\r\n')[1] + '\r\n', '');
    const r = await verifyText(text, { statement: s as never });
    expect(r.findings.slice(0, 2)).toEqual(['entry #7: hash does not match its contents', 'entry #31 missing']);
  });

  it('a statement for the JSON Lines export does not verify the CSV one', async () => {
    const r = await verifyText(csv(tricky), { statement: statementOf(tricky, key) as never });
    expect(r.findings).toEqual(['the statement is for a jsonl export, and this file is csv']);
  });

  it("refuses a CSV without the appliance's header, in words", async () => {
    const r = await verifyText('id,at\r\na,b\r\n', { statement: csvStatement as never });
    expect(r.findings[0]).toMatch(/^line 1: not an audit export with a chain: the header is not id,at,actor\.subject/);
  });
});
