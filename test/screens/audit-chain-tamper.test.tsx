import { describe, expect, it } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { rehash, type Entry } from '../helpers/audit-chain.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { setupScreenSuite, type ScreenSuite } from '../helpers/screen-suite.js';
import { startTestServer } from '../helpers/server.js';
import { tamper } from '../helpers/tamper.js';

/**
 * The dashboard's share of the tamper suite (issue 28 §7): each tampering of test/server/audit-tamper.test.ts,
 * made directly in SQLite, is named by V (entry number, in words) and said by the audit screen and the
 * overview as CHAIN BROKEN. Each breaks the chain for good, so each has a server of its own.
 */
const NOW = Date.now();
const SEEDED = 120;
/** the seeds, then the export that signs the first checkpoint */
const HEAD = SEEDED + 1;

function seed(i: number): AuditSeed {
  return {
    at_ms: NOW - 10 * 60_000 - i * 60_000,
    actor: { subject: 'alice@corp.example', role: 'it_admin' },
    action: 'gateway.key.create',
    target: { type: 'gateway_key', id: `key_tamper${i}` },
    outcome: 'success',
    status: 200,
    request_id: `req_tamper${i}`,
    source_ip: '10.0.0.1',
    details: { n: i },
  };
}

/** A server with SEEDED entries written oldest first, as the appliance writes them, and a checkpoint of #HEAD. */
function trailSuite(order: 'oldest first' | 'newest first' = 'oldest first'): ScreenSuite {
  return setupScreenSuite({
    setup: async (s) => {
      const seeds = Array.from({ length: SEEDED }, (_, i) => seed(i));
      insertAuditBatch(s.server.db, order === 'oldest first' ? seeds.reverse() : seeds);
      const exported = await s.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
      expect(exported.status).toBe(200);
    },
  });
}

/**
 * The whole trail rewritten with one entry changed (#2's actor) and every hash after it recomputed,
 * as a forger with the database would; read through the list, which (unlike an export) writes nothing.
 */
async function forge(suite: ScreenSuite) {
  const r = await suite.server.call('GET', '/audit?limit=500', { role: 'auditor' });
  const entries = (r.json.data as Entry[]).reverse();
  expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: HEAD }, (_, i) => i + 1));
  const forged = rehash(entries.map((e) => (e.seq === 2 ? { ...e, actor: { subject: 'nobody', role: null } } : e)));
  tamper(suite.db);
  const update = suite.db.prepare(
    'UPDATE audit SET actor_subject = ?, actor_role = ?, prev_hash = ?, hash = ? WHERE seq = ?',
  );
  suite.db.transaction(() => {
    for (const e of forged) {
      const a = e.actor as { subject: string; role: string | null };
      update.run(a.subject, a.role, e.prev_hash, e.hash, e.seq);
    }
  })();
}

/** The audit screen as an auditor, once the page and the newest checkpoint are checked (the dashboard keeps it). */
async function auditScreen(suite: ScreenSuite): Promise<DashboardHarness> {
  const d = suite.render({ screen: 'audit', role: 'auditor', columns: 260 });
  await d.waitForText(/(chain checks out|entries unaltered).* · checkpoint #|CHAIN BROKEN/);
  return d;
}

/**
 * V's findings, the dialog's wrapped lines read as one: its own, or the appliance's refusal to
 * export a trail that does not extend what it signed (src/server/audit-chain/extends.ts).
 */
async function verify(d: DashboardHarness): Promise<string> {
  await d.press('V');
  const f = (await d.waitForText(/\d+ findings?:|will not sign its audit trail/, 15_000)).replace(/[│\s]+/g, ' ');
  expect(f).toContain('✕ ERROR CHAIN BROKEN BROKEN OR INCOMPLETE: ');
  await d.press('esc');
  return f;
}

/** The overview's critical line, the triage board's words. */
async function overviewSays(suite: ScreenSuite, line: RegExp) {
  await suite.unmount();
  const o = suite.render({ columns: 220 });
  const board = await o.waitForText('Audit chain broken');
  expect(board).toMatch(line);
}

describe('one field of one entry changed', () => {
  const suite = trailSuite();
  it('V names the entry; the audit screen and the overview say CHAIN BROKEN at it', async () => {
    tamper(suite.db, `UPDATE audit SET outcome = 'denied' WHERE seq = ${HEAD - 3}`);
    const d = await auditScreen(suite);
    await d.waitForText(`CHAIN BROKEN at #${HEAD - 3}: its hash does not match its contents`);
    expect(await verify(d)).toContain(`entry #${HEAD - 3}: hash does not match its contents`);
    await d.waitForText(`CHAIN BROKEN at #${HEAD - 3}`);
    await overviewSays(suite, new RegExp(`CRIT\\s+Audit chain broken at #${HEAD - 3}`));
  });
});

describe('one entry deleted', () => {
  const suite = trailSuite();
  const gone = HEAD - 4;
  it('the page check finds it without V, as entries missing between the rows of the unfiltered page', async () => {
    tamper(suite.db, `DELETE FROM audit WHERE seq = ${gone}`);
    const d = await auditScreen(suite);
    const f = await d.waitForText('CHAIN BROKEN');
    expect(f).toContain(`CHAIN BROKEN at #${gone}: entry #${gone} missing: #${gone + 1} follows #${gone - 1} in time`);
    await overviewSays(suite, new RegExp(`CRIT\\s+Audit chain broken at #${gone}`));
  });

  it('a filtered page (a search) proves only its own entries unaltered: no gap, no break', async () => {
    const d = await auditScreen(suite);
    await d.press('/');
    await d.type('alice@corp');
    await d.press('enter');
    const f = await d.waitForText('entries unaltered (filtered page');
    expect(f).toMatch(new RegExp(`entries unaltered \\(filtered page #\\d+–#${HEAD - 1}\\)`));
    expect(f).not.toContain('CHAIN BROKEN');
  });

  it('V names the entry missing', async () => {
    const d = await auditScreen(suite);
    expect(await verify(d)).toContain(`entry #${gone} missing`);
  });
});

describe('two entries swapped', () => {
  const suite = trailSuite();
  it('V names both; the audit screen and the overview say CHAIN BROKEN', async () => {
    const [a, b] = [HEAD - 6, HEAD - 5];
    tamper(
      suite.db,
      `UPDATE audit SET seq = -1 WHERE seq = ${a}`,
      `UPDATE audit SET seq = ${a} WHERE seq = ${b}`,
      `UPDATE audit SET seq = ${b} WHERE seq = -1`,
    );
    const d = await auditScreen(suite);
    await d.waitForText(`CHAIN BROKEN at #${a}: its hash does not match its contents`);
    const f = await verify(d);
    expect(f).toContain(`entry #${a}: hash does not match its contents`);
    expect(f).toContain(`entry #${b}: hash does not match its contents`);
    await overviewSays(suite, new RegExp(`CRIT\\s+Audit chain broken at #${a}`));
  });
});

describe('the tail cut, the appliance keeping its checkpoints', () => {
  const suite = trailSuite();
  it('V says the appliance refuses the cut trail; the audit screen and the overview keep CHAIN BROKEN', async () => {
    // nothing seen before the cut: the appliance's checkpoints tell (and the one kept on the way, now)
    tamper(suite.db, `DELETE FROM audit WHERE seq > ${HEAD - 3}`);
    const d = await auditScreen(suite);
    await d.waitForText(new RegExp(`chain checks out \\(page #\\d+–#${HEAD - 3}\\) · checkpoint #${HEAD} signed`));
    const f = await verify(d);
    // the appliance itself will not export (nor sign) a trail that does not extend its last checkpoint
    expect(f).toMatch(new RegExp(`will not sign its audit trail: the trail ends at #\\d+, before #${HEAD}`));
    // a failed V keeps the header and the overview saying CHAIN BROKEN for the run
    await d.waitForText(/CHAIN BROKEN at #\d+: the appliance will not sign its audit trail: .* \(V\)/);
    await overviewSays(suite, /CRIT\s+Audit chain broken at #\d+\s+the appliance will not sign its audit trail/);
    // and the appliance's own refusal (its audit-chain component down) has a line of its own
    await overviewSays(suite, /CRIT\s+Audit chain\s+refused by the appliance: the trail does not extend/);
  });
});

describe('the tail cut with the checkpoints after it', () => {
  const suite = trailSuite();
  it('the page check finds it by the checkpoint the dashboard kept earlier; V says the appliance refuses it', async () => {
    const before = await auditScreen(suite);
    await before.waitForText(`checkpoint #${HEAD} signed`);
    await suite.unmount();
    tamper(
      suite.db,
      `DELETE FROM audit WHERE seq > ${HEAD - 3}`,
      `DELETE FROM audit_checkpoints WHERE seq > ${HEAD - 3}`,
    );
    const d = await auditScreen(suite);
    // the appliance never removes a checkpoint: one it signed and no longer lists is a break already
    await d.waitForText(`CHAIN BROKEN at #${HEAD}: the appliance lists no checkpoint, but it signed #${HEAD} earlier`);
    const f = await verify(d);
    expect(f).toMatch(new RegExp(`will not sign its audit trail: the trail ends at #\\d+, before #${HEAD}`));
    await d.waitForText(`CHAIN BROKEN at #${HEAD}: the appliance lists no checkpoint, but it signed #${HEAD} earlier`);
    await overviewSays(suite, new RegExp(`CRIT\\s+Audit chain broken at #${HEAD}\\s+.*its checkpoints were removed`));
  });
});

describe('the whole trail replaced by a consistently re-hashed forgery', () => {
  const suite = trailSuite();
  it("the page check finds it by the appliance's own signed checkpoint; V says the appliance refuses it", async () => {
    await forge(suite);
    const d = await auditScreen(suite);
    await d.waitForText(`CHAIN BROKEN at #${HEAD}: the entry is not what the signed checkpoint recorded`);
    const f = await verify(d);
    expect(f).toContain(`will not sign its audit trail: entry #${HEAD} is not what this appliance signed`);
    await d.waitForText(`CHAIN BROKEN at #${HEAD}: the entry is not what the signed checkpoint recorded`);
    await overviewSays(suite, new RegExp(`CRIT\\s+Audit chain broken at #${HEAD}`));
  });
});

describe('a forgery with every checkpoint removed', () => {
  const suite = trailSuite();
  it('the page check finds it by the checkpoint the dashboard kept earlier; V says the appliance refuses it', async () => {
    const before = await auditScreen(suite);
    await before.waitForText(`checkpoint #${HEAD} signed`);
    await suite.unmount();
    await forge(suite);
    tamper(suite.db, 'DELETE FROM audit_checkpoints');
    const d = await auditScreen(suite);
    await d.waitForText(
      `CHAIN BROKEN at #${HEAD}: entry #${HEAD} is no longer what the checkpoint kept earlier recorded: ` +
        'the trail was rewritten since',
    );
    const f = await verify(d);
    expect(f).toContain(`will not sign its audit trail: entry #${HEAD} is not what this appliance signed`);
    await d.waitForText(`CHAIN BROKEN at #${HEAD}: entry #${HEAD} is no longer what the checkpoint kept earlier`);
    await overviewSays(suite, new RegExp(`CRIT\\s+Audit chain broken at #${HEAD}\\s+.*rewritten since`));
  });
});

describe('no false break', () => {
  describe('a trail seeded newest first (seq against time, as some tests seed it)', () => {
    const suite = trailSuite('newest first');
    it('the page proves no gap, so it claims none', async () => {
      const d = await auditScreen(suite);
      const f = await d.waitForText(/chain checks out \(page #\d+–#\d+\)/);
      expect(f).not.toContain('CHAIN BROKEN');
    });
  });

  describe("the demo appliance's trail", () => {
    const suite = setupScreenSuite({ start: () => startTestServer({ demo: true }) });
    it('keeps seq in time order, and its newest page and V check out', async () => {
      const rows = suite.db.prepare('SELECT seq FROM audit ORDER BY at_ms, seq').pluck().all() as number[];
      expect(rows.length).toBeGreaterThan(1000);
      expect(rows.every((seq, i) => seq === i + 1)).toBe(true);
      const d = await auditScreen(suite);
      await d.waitForText(/chain checks out \(page #[\d,]+–#[\d,]+\) · checkpoint #/);
      await d.press('V');
      await d.waitForText('Audit trail verified', 30_000);
      expect(d.frame()).not.toContain('CHAIN BROKEN');
    }, 60_000);
  });
});
