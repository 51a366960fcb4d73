import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import { readKeysFile, type PinnedAuditKey } from '../../src/audit-chain/keys-file.js';
import { recordAudit } from '../../src/server/audit.js';
import { insertAuditBatch } from '../../src/server/governance/bulk.js';
import { patchScreen } from '../../src/dashboard/state/ui.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { startHostile } from '../helpers/hostile-server.js';
import { runCli } from '../helpers/cli.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { tempDir } from '../helpers/fixtures.js';
import { setupScreenSuite, type ScreenSuite } from '../helpers/screen-suite.js';

/**
 * Issue 36: the dashboard checks what the appliance served, never the rows it sanitized and cut for
 * the terminal (§1); an audit key pinned for the appliance (§8); its export verifies as the CLI's
 * does (§2). Against the real server. Each part has a server of its own: what the dashboard keeps
 * of a chain (a failed V, a kept checkpoint) is kept per appliance for the whole run.
 */

// the built CLI (audit verify), as a user runs it
beforeAll(ensureBuilt, 180_000);

const n = (v: number) => v.toLocaleString('en-US');
const clearField = (h: DashboardHarness, count = 60) => h.press(...Array<string>(count).fill('backspace'));

/** The appliance's public keys as `audit key -o` writes them, read as the dashboard reads --audit-key. */
async function servedKey(suite: ScreenSuite): Promise<PinnedAuditKey> {
  const r = await suite.server.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' });
  const pem = (r.json.public_keys as { public_key_pem: string }[]).map((k) => k.public_key_pem).join('');
  return keyFile(pem);
}

function keyFile(pem: string): PinnedAuditKey {
  const file = join(tempDir('aa-audit-key'), 'appliance.pem');
  writeFileSync(file, pem);
  const read = readKeysFile(file);
  if (typeof read === 'string') throw new Error(read);
  return read;
}

/** An export signs a checkpoint of the head: the page check then has one to verify. */
async function signHead(suite: ScreenSuite) {
  expect((await suite.server.call('GET', '/audit/export?format=jsonl', { role: 'auditor' })).status).toBe(200);
}

const maxSeq = (suite: ScreenSuite) => suite.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
/** The newest checkpoint: an export ends at it, when only exports' own entries came after it (docs/audit-chain.md). */
const signedSeq = (suite: ScreenSuite) =>
  suite.db.prepare('SELECT max(seq) FROM audit_checkpoints').pluck().get() as number;

describe('what the appliance accepts never makes an intact trail look broken (issue 36 §1)', () => {
  const suite = setupScreenSuite();

  it('a tab in a key name, a zero-width space in a path, a value over 4,096 characters: no CHAIN BROKEN', async () => {
    // an auditor's refused attempts, audited with what was sent, as they should be
    const tab = await suite.server.call('POST', '/gateway/keys', { role: 'auditor', body: { name: 'tab\there' } });
    expect(tab.status).toBe(403);
    const zws = await suite.server.call('POST', '/gateway/keys/key_%E2%80%8Bx/revoke', { role: 'auditor' });
    expect(zws.status).toBe(403);
    recordAudit(suite.db, {
      actor: { subject: 'alice-admin', role: 'it_admin' },
      action: 'gateway.key.create',
      target: { type: 'gateway_key', id: 'key_long', name: 'long' },
      outcome: 'success',
      status: 201,
      request_id: 'req_long_value',
      source_ip: '10.0.0.5',
      details: { note: `${'n'.repeat(5000)}end` },
    });
    const rows = suite.auditRows();
    expect(rows.map((r) => r.target_id)).toEqual(expect.arrayContaining(['key_\u200bx', 'key_long']));
    await signHead(suite);

    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 200 });
    const f = await d.waitForText(/chain checks out \(page #1–#\d+\) · checkpoint #/);
    expect(f).not.toContain('CHAIN BROKEN');
    // shown as safe text all the same: the tab a space, the zero-width space gone
    expect(f).toContain('gateway key tab here');
    expect(f).not.toContain('\u200b');
    expect(f).toContain('gateway key key_x');
    await d.unmount();

    const o = suite.render({ role: 'auditor', columns: 200 });
    const board = await o.waitForText(/Audit chain\s+newest entries check out \(to #.*\) · checkpoint #/);
    expect(board).toMatch(
      new RegExp(`OK\\s+Audit chain\\s+newest entries check out \\(to #${n(maxSeq(suite))}\\) · checkpoint #`),
    );
    expect(board).not.toContain('Audit chain broken');
    expect(board).not.toContain('CRIT');
  });

  it('the first frame reads its answers as sent and unchecked: its chain check is on those too', async () => {
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 200, deferChecks: true });
    const f = await d.waitForText(/chain checks out/);
    expect(f).not.toContain('CHAIN BROKEN');
    d.deps.poller.firstFrameDrawn();
    await d.waitForText(/chain checks out.* · checkpoint #/);
    expect(d.allFrames()).not.toContain('CHAIN BROKEN');
  });
});

describe('an audit key pinned for the appliance (issue 36 §8)', () => {
  const suite = setupScreenSuite();

  it('the header says the checkpoint is signed by the pinned key; V verifies with it (verified, no hint to pin)', async () => {
    await signHead(suite);
    const auditKey = await servedKey(suite);
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 220, auditKey });
    await d.waitForText(/chain checks out \(page #1–#\d+\) · checkpoint #\d+ signed \d+ (s|min) ago by the pinned key/);
    await d.press('V');
    const f = (await d.waitForText('Audit trail verified', 10_000)).replace(/[│\s]+/g, ' ');
    // V's export ends at the checkpoint signHead's export signed: nothing but V's own entry came since
    const top = signedSeq(suite);
    expect(maxSeq(suite)).toBe(top + 1);
    expect(f).toContain('● DONE Audit trail verified verified: the whole trail');
    expect(f).toContain(`entries #1–#${n(top)} (${n(top)}), complete and unaltered`);
    expect(f).toMatch(/signed by key SHA256:\w{4} \w{4} \w{4} \w{4}, the key you pinned/);
    expect(f).not.toContain('unpinned');
    expect(f).not.toContain('pin the key');
    await d.press('esc');
    await d.waitForText(new RegExp(`chain verified to #${n(top)} \\(\\d+ s ago\\)`));
    await d.unmount();

    // after V, the overview says the whole trail was verified, not only its newest entries
    const o = suite.render({ role: 'auditor', columns: 200, auditKey });
    await o.waitForText(
      new RegExp(`OK\\s+Audit chain\\s+verified to #${n(top)} · checkpoint #[\\d,]+ by the pinned key`),
    );
  });

  it('a pinned key file holding no usable key: the chain is said not checked (a warning), never broken', async () => {
    const auditKey = keyFile('-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n');
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 200, auditKey });
    const f = await d.waitForText('chain not checked');
    expect(f).toContain('▲ chain not checked: the pinned audit key file is not a PEM public key');
    expect(f).not.toContain('CHAIN BROKEN');
    await d.press('V');
    const v = (await d.waitForText('Audit trail: could not check')).replace(/[│\s]+/g, ' ');
    expect(v).toContain(`the key file ${auditKey.file} is not a PEM public key`);
    await d.press('esc');
    await d.unmount();
    const o = suite.render({ role: 'auditor', columns: 200, auditKey });
    await o.waitForText(/WARN\s+Audit chain not checked\s+the pinned audit key file is not a PEM public key/);
  });
});

describe('a key pinned that is not the appliance’s', () => {
  const suite = setupScreenSuite();

  it('the page check and V both say CHAIN BROKEN: the checkpoint is not signed by the pinned key', async () => {
    await signHead(suite);
    const other = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const auditKey = keyFile(other);
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 240, auditKey });
    const f = await d.waitForText('CHAIN BROKEN');
    expect(f).toMatch(
      /CHAIN BROKEN at #\d+: the newest checkpoint is signed by key SHA256:.*, not the audit key pinned/,
    );
    await d.press('V');
    const v = (await d.waitForText(/\d+ findings?:/, 10_000)).replace(/[│\s]+/g, ' ');
    expect(v).toContain('✕ ERROR CHAIN BROKEN BROKEN OR INCOMPLETE: ');
    expect(v).toMatch(/is signed by key SHA256:.*, not the key you pinned/);
  });
});

describe("the dashboard's audit export verifies as the CLI's does (issue 36 §2)", () => {
  const NOW = Date.now();
  const DAY = 24 * 60 * 60_000;
  let outDir: string;
  const suite = setupScreenSuite({
    setup: (s) => {
      // ten days of entries, one every six hours: a 7-day export is a stretch in the middle of the trail
      for (let i = 40; i >= 0; i--)
        recordAudit(s.server.db, {
          actor: { subject: 'alice-admin', role: 'it_admin' },
          action: 'gateway.key.create',
          target: { type: 'gateway_key', id: `key_e${i}`, name: `export ${i}` },
          outcome: 'success',
          status: 201,
          request_id: `req_export_${i}`,
          source_ip: '10.0.0.5',
          details: { name: `tab\there ${i}` },
          at_ms: NOW - i * (DAY / 4),
        });
      outDir = join(tempDir('aa-audit-statement'), 'out');
      mkdirSync(outDir);
    },
  });

  async function exportTo(d: DashboardHarness, dest: string, format: 'csv' | 'jsonl'): Promise<string> {
    await d.press('w');
    await d.waitForText('Export the audit trail');
    if (format === 'jsonl') await d.press('right');
    await d.press('tab');
    await clearField(d);
    await d.type(dest);
    await d.press('enter');
    const done = (await d.waitForText('Export written', 15_000)).replace(/[│\s]+/g, ' ');
    await d.press('esc');
    return done;
  }

  it('e writes FILE.checkpoint.json beside the file; audit verify FILE --key K verifies it (exit 0)', async () => {
    const key = await servedKey(suite);
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 200 });
    await d.waitForText('chain checks out');
    const dest = join(outDir, 'trail.jsonl');
    const done = await exportTo(d, dest, 'jsonl');
    // the dialog wraps a long path anywhere: its words are read without the breaks
    const words = done.replace(/ /g, '');
    expect(words).toMatch(new RegExp(`checkpoint${dest}\\.checkpoint\\.json\\(signedstatement,head#\\d+\\)`));
    expect(words).toContain(`checkitwithappliance-adminauditverify${dest}--keyKEY.pem`);
    expect(JSON.parse(readFileSync(`${dest}.checkpoint.json`, 'utf8'))).toMatchObject({
      statement: { type: 'audit-export', format: 'jsonl', filters: {} },
    });
    const r = await runCli(['audit', 'verify', dest, '--key', key.file]);
    expect(r.stdout).toMatch(/^verified: the whole trail, entries #1–#\d+ \(\d+\), complete and unaltered/m);
    expect([r.code, r.stderr]).toEqual([0, '']);
  });

  it('a 7-day export (csv) verifies as a run of the trail, not as entries missing before it', async () => {
    const key = await servedKey(suite);
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 200 });
    await d.waitForText('chain checks out');
    patchScreen(d.deps.ui, 'audit', { extra: { range: '7d' } });
    await d.waitForText('last 7 days');
    const dest = join(outDir, 'week.csv');
    const done = await exportTo(d, dest, 'csv');
    expect(done.replace(/ /g, '')).toMatch(
      /checkpoint\S*week\.csv\.checkpoint\.json\(signedstatement,head#\d+,filteredexport\)/,
    );
    const r = await runCli(['audit', 'verify', dest, '--key', key.file]);
    expect(r.stdout).toMatch(/^verified: every entry from \S+ to the head \(#\d+\), entries #\d+–#\d+ \(\d+\)/m);
    expect(r.stdout).not.toContain('missing');
    expect([r.code, r.stderr]).toEqual([0, '']);
  });
});

describe("V's progress (issue 36 §12)", () => {
  const SEEDED = 60_000;
  const NOW = Date.now();
  const suite = setupScreenSuite({
    setup: (s) => {
      insertAuditBatch(
        s.server.db,
        Array.from({ length: SEEDED }, (_, i) => ({
          at_ms: NOW - (SEEDED - i) * 1000,
          actor: { subject: 'svc-load', role: 'it_admin' as const },
          action: 'gateway.key.create',
          target: { type: 'gateway_key', id: `key_p${i}` },
          outcome: 'success' as const,
          status: 201,
          request_id: `req_p${i}`,
          source_ip: '10.0.0.1',
          details: { n: i },
        })),
      );
    },
  });

  it('counts against the count the appliance signed, and never past it', async () => {
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 160 });
    await d.waitForText('chain checks out');
    await d.press('V');
    await d.waitForText('Audit trail verified', 60_000);
    const said = [...d.allFrames().matchAll(/verified ([\d,]+) of ([\d,]+) entries/g)].map((m) =>
      [m[1], m[2]].map((v) => Number(v.replace(/,/g, ''))),
    );
    // the seeds end on a checkpoint (every 1,000 entries), and nothing but the export's own entry came since: the
    // export ends at that checkpoint, and its count is the total
    const total = SEEDED;
    expect(signedSeq(suite)).toBe(SEEDED);
    expect(said.length).toBeGreaterThan(0);
    expect(said.every(([, of]) => of === total)).toBe(true);
    expect(said.every(([done, of]) => done <= of)).toBe(true);
    expect(said.some(([done]) => done < total)).toBe(true);
  }, 90_000);

  it('an export longer than the count it signed is broken, and the count said stops at that count', async () => {
    // between the dashboard and the appliance, something adds an entry to the export it passes on
    const hostile = await startHostile({ upstream: suite.server.url });
    try {
      hostile.set('/audit/export', async (req, res) => {
        const up = await request(`${suite.server.url}${req.url}`, {
          headers: { authorization: String(req.headers.authorization) },
        });
        const body = await up.body.text();
        const lines = body.trimEnd().split('\n');
        const headers: Record<string, string> = {};
        for (const h of ['content-type', 'x-request-id', 'audit-export-statement', 'audit-checkpoint'])
          if (typeof up.headers[h] === 'string') headers[h] = up.headers[h] as string;
        res.writeHead(up.statusCode, headers);
        res.end(`${body}${lines[lines.length - 1]}\n`);
      });
      const d = suite.render({
        screen: 'audit',
        role: 'auditor',
        columns: 160,
        url: hostile.url,
        token: suite.server.tokens.auditor,
      });
      await d.waitForText('chain checks out');
      await d.press('V');
      const f = (await d.waitForText(/\d+ findings?:/, 60_000)).replace(/[│\s]+/g, ' ');
      expect(f).toMatch(/the file holds more entries than the [\d,]+ the appliance signed/);
      const said = [...d.allFrames().matchAll(/verified ([\d,]+) of ([\d,]+) entries/g)].map((m) =>
        [m[1], m[2]].map((v) => Number(v.replace(/,/g, ''))),
      );
      expect(said.length).toBeGreaterThan(0);
      expect(said.every(([done, of]) => done <= of)).toBe(true);
      await suite.unmount();
    } finally {
      await hostile.close();
    }
  }, 90_000);
});
