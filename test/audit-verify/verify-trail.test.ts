import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { exportScope } from '../../src/audit-verify/export-scope.js';
import { verifyTrail, type VerifyOptions } from '../../src/audit-verify/verify-trail.js';
import { readTrail } from '../../src/audit-verify/read-trail.js';
import { csvLine } from '../../src/server/governance/csv.js';
import {
  chainedTrail,
  checkpointOf,
  entryHash,
  jsonl,
  rehash,
  signingKey,
  type Entry,
} from '../helpers/audit-chain.js';
import { AUDIT_CSV_HEADER } from '../helpers/audit-csv.js';

const key = signingKey();
const trail = chainedTrail(40, (i) => (i % 6 ? { format: 'csv', filters: { action: 'x' } } : {}));
const withHash = (e: Entry): Entry => ({ ...e, hash: entryHash(e) });
const head = (entries: Entry[]) => checkpointOf(entries[entries.length - 1], key);

const verifyText = (text: string, o: VerifyOptions) => verifyTrail(readTrail(Readable.from([text])), o);
const verifyEntries = (entries: Entry[], o: Partial<VerifyOptions> = {}) =>
  verifyText(jsonl(entries), { checkpoint: head(trail), publicKeyPem: key.publicKeyPem, ...o });

describe('verifyTrail (JSON Lines)', () => {
  it('an untouched trail with its signed checkpoint verifies clean', async () => {
    const r = await verifyEntries(trail);
    expect(r).toMatchObject({ ok: true, entries: 40, firstSeq: 1, lastSeq: 40, findings: [] });
  });

  it('finds an entry whose contents changed', async () => {
    const changed = trail.map((e) => (e.seq === 22 ? { ...e, outcome: 'denied' } : e));
    expect((await verifyEntries(changed)).findings).toEqual(['entry #22: hash does not match its contents']);
  });

  it('finds missing entries, by range', async () => {
    const r = await verifyEntries(trail.filter((e) => e.seq < 21 || e.seq > 23));
    expect(r.findings).toEqual(['entries #21–#23 missing (3)']);
    expect(r.ok).toBe(false);
  });

  it('finds a re-hashed entry by its successor no longer linking', async () => {
    const forged = trail.map((e) => (e.seq === 10 ? rehash([{ ...e, outcome: 'denied' }])[0] : e));
    forged[9] = { ...forged[9], prev_hash: trail[8].hash };
    forged[9].hash = rehash(trail.slice(0, 9).concat(forged[9]))[9].hash;
    expect((await verifyEntries(forged)).findings).toEqual(['entry #11: prev_hash does not link to #10']);
  });

  it('finds two entries swapped in the file', async () => {
    const swapped = [...trail];
    [swapped[4], swapped[5]] = [swapped[5], swapped[4]];
    const r = await verifyEntries(swapped);
    expect(r.ok).toBe(false);
    expect(r.findings).toContain('entry #5 is out of order: it comes after #6');
  });

  it('finds a cut tail against the signed checkpoint', async () => {
    const r = await verifyEntries(trail.slice(0, 30));
    expect(r.findings).toEqual(['the file ends at #30 but the checkpoint signed #40 (the tail is cut)']);
  });

  it('finds a consistently re-hashed forgery: its checkpoint is not signed by the appliance key', async () => {
    const forged = rehash(trail.map((e) => (e.seq === 3 ? { ...e, actor: { subject: 'mallory', role: null } } : e)));
    const forger = signingKey();
    const r = await verifyEntries(forged, { checkpoint: checkpointOf(forged[39], forger) });
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatch(
      /^checkpoint signature does not verify with key SHA256:(\w{4} ){3}\w{4} \(the checkpoint names key SHA256:/,
    );
    // the appliance's own old signature on the real head does not fit the forged head either
    const r2 = await verifyEntries(forged, { checkpoint: { ...head(trail), hash: forged[39].hash } });
    expect(r2.findings[0]).toMatch(/^checkpoint signature does not verify/);
  });

  it('with a kept checkpoint: a forgery is found despite a valid new signature; a grown trail passes', async () => {
    const kept = checkpointOf(trail[19], key);
    const forged = rehash(trail.map((e) => (e.seq === 3 ? { ...e, outcome: 'failed' } : e)));
    const r = await verifyEntries(forged, { checkpoint: head(forged), since: kept });
    expect(r.findings).toEqual([
      'entry #20 is no longer what the kept checkpoint recorded: the trail was rewritten since',
    ]);
    const cut = trail.slice(0, 15);
    expect((await verifyEntries(cut, { checkpoint: head(cut), since: kept })).findings).toEqual([
      'the file ends at #15 but the kept checkpoint was at #20 (the trail was cut since)',
    ]);
    expect((await verifyEntries(trail, { since: kept })).ok).toBe(true);
  });

  it('without a checkpoint or a key, says what then cannot be known, and fails', async () => {
    expect((await verifyText(jsonl(trail), {})).findings).toEqual([
      'no checkpoint: nothing signed vouches for where the trail ends, so a cut tail or a re-hashed forgery would pass',
    ]);
    expect((await verifyText(jsonl(trail), { checkpoint: head(trail) })).findings).toEqual([
      'no public key given: the checkpoint signature was not checked, so a re-hashed forgery would pass',
    ]);
  });

  it('a filtered export: its entries are unaltered, and it says completeness cannot be proven', async () => {
    const some = trail.filter((e) => e.seq % 3 === 0);
    const r = await verifyEntries(some, { scope: exportScope(true, { action: 'x' }) });
    expect(r.ok).toBe(true);
    expect(r.notes).toEqual([
      'filtered export: its 13 entries are unaltered; a filtered export cannot prove the trail complete',
    ]);
    const altered = some.map((e) => (e.seq === 9 ? { ...e, status: 500 } : e));
    const r2 = await verifyEntries(altered, { scope: exportScope(true, { action: 'x' }) });
    expect(r2.findings).toEqual(['entry #9: hash does not match its contents']);
    expect(r2.notes[0]).toMatch(/^filtered export: 12 of its 13 entries are unaltered/);
  });

  it('a time-range export is a run of the trail: a gap or a broken link inside it is found', async () => {
    const scope = exportScope(true, { start_time: '2026-11-01T00:00:00Z' });
    const run = trail.filter((e) => e.seq >= 5);
    const clean = await verifyEntries(run, { scope });
    expect(clean.findings).toEqual([]);
    expect(clean.notes).toEqual([
      'time-range export: its entries #5–#40 are checked as a run of the trail; ' +
        'whether entries before #5 were removed cannot be shown from it',
    ]);
    expect(
      (
        await verifyEntries(
          run.filter((e) => e.seq !== 20),
          { scope },
        )
      ).findings,
    ).toEqual(['entry #20 missing']);
    // an entry replaced by another with a hash of its own: its link to the one before breaks
    const swapped = run.map((e) => (e.seq === 21 ? withHash({ ...e, prev_hash: 'f'.repeat(64) }) : e));
    expect((await verifyEntries(swapped, { scope })).findings).toEqual([
      'entry #21: prev_hash does not link to #20',
      'entry #22: prev_hash does not link to #21',
    ]);
    // with an end_time, the file need not reach the signed head
    const bounded = await verifyEntries(
      trail.filter((e) => e.seq >= 5 && e.seq <= 30),
      { scope: exportScope(true, { start_time: 'a', end_time: 'b' }) },
    );
    expect(bounded.findings).toEqual([]);
    expect(bounded.notes[0]).toMatch(/whether entries before #5 or after #30 were removed cannot be shown/);
  });

  it('names lines that are not entries', async () => {
    const text = jsonl(trail).replace(`${JSON.stringify(trail[1])}\n`, 'not json\n[1]\n');
    const r = await verifyText(text, { checkpoint: head(trail), publicKeyPem: key.publicKeyPem });
    expect(r.findings).toEqual(['line 2: not JSON', 'line 3: not a JSON object', 'entry #2 missing']);
  });

  it('lists at most 100 single-entry findings, then counts the rest', async () => {
    const many = chainedTrail(300).map((e) => ({ ...e, status: 201 }));
    const r = await verifyEntries(many, { checkpoint: head(many) });
    expect(r.findings).toHaveLength(101);
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
  it('verifies a CSV export, reading empty cells and formula guards either way', async () => {
    const tricky = rehash(
      chainedTrail(12, (i) => ({ note: i === 4 ? 'line one\r\nline "two", three' : 'x' })).map((e) =>
        e.seq === 5
          ? { ...e, target: { type: 'gateway_key', id: '', name: '=1+1' } }
          : e.seq === 6
            ? { ...e, actor: { subject: "'=quoted", role: null } }
            : e,
      ),
    );
    const r = await verifyText(csv(tricky), { checkpoint: head(tricky), publicKeyPem: key.publicKeyPem });
    expect(r).toMatchObject({ ok: true, entries: 12, findings: [] });
  });

  it('finds a changed cell and a deleted row', async () => {
    const text = csv(trail)
      .replace(`,${trail[6].request_id},`, ',req-forged,')
      .replace(csv([trail[30]]).split('\r\n')[1] + '\r\n', '');
    const r = await verifyText(text, { checkpoint: head(trail), publicKeyPem: key.publicKeyPem });
    expect(r.findings).toEqual(['entry #7: hash does not match its contents', 'entry #31 missing']);
  });

  it('refuses a CSV without the chain columns, in words', async () => {
    const r = await verifyText('id,at\r\na,b\r\n', {});
    expect(r.findings[0]).toBe(
      'line 1: not an audit export with a chain: no column actor.subject, actor.role, action, target.type, ' +
        'target.id, outcome, status, request_id, source_ip, details, target.name, seq, prev_hash, hash',
    );
  });
});
