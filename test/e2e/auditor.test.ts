import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { screens } from '../../screens/index.js';
import { recordJournal } from '../../src/server/governance/journal-writer.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { domainSnapshot, e2eTitle, escapeRegExp, ISSUE_SCREENS, startDashboard, TROUBLE } from '../helpers/e2e.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, killTmuxServer, type TmuxSession } from '../helpers/tmux.js';
import { defaultKeys } from '../../src/dashboard/shell/keymap.js';

/**
 * An auditor walks every screen of the BUILT dashboard in a real terminal (tmux) against the
 * real server, presses every key that would change something, and nothing changes.
 */
const title = e2eTitle('auditor in tmux');
const present = screens.map((x) => x.name);
const missing = ISSUE_SCREENS.filter((n) => !present.includes(n));

/** What each screen must show, given the data seeded below. */
const EXPECTED: Record<string, RegExp> = {
  overview: /OK\s+Deployment healthy/,
  connectors: /Team share\s+document-sharing\s+healthy/,
  channels: /Web chat\s+chan_web\s+● enabled/,
  keys: /seed-key\s+active\s+agk_/,
  usage: /seed-key/,
  models: /Llama 3\.1 8B Instruct\s+● present\s+◆ ACTIVE/,
  routing: /summarize\s+mistral-7b\s+mistral-7b/,
  audit: /alice-admin \(it_admin\)\s+gateway\.key\.create/,
  journal: /helpdesk/,
  budgets: /helpdesk\s+5,000/,
  deployment: /Install plan/,
  settings: /test-appliance/,
  identity: /Identity-provider connectivity pre-check/,
};

describe.skipIf(!hasTmux())(title, () => {
  let s: TestServer;
  let t: TmuxSession;
  let before: Record<string, unknown[]>;
  let auditSeq: number;

  beforeAll(async () => {
    await ensureBuilt();
    s = await startTestServer();
    // Data on every screen: a key with traffic, journal steps, a budget override, admin changes.
    const created = await s.call('POST', '/gateway/keys', {
      body: { name: 'seed-key', quota: { requests_per_minute: 100, tokens_per_minute: null, tokens_per_day: null } },
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const r = await request(`${s.url}/v1/gateway/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.json.secret}`, 'content-type': 'application/json' },
        body: '{"max_tokens":5}',
      });
      expect(r.statusCode).toBe(200);
      await r.body.dump();
    }
    const budgets = (await s.call('GET', '/agent/budgets')).json;
    expect(
      (
        await s.call('PUT', '/agent/budgets', {
          body: { defaults: budgets.defaults, agents: { helpdesk: { tokens_per_run: 5000 } } },
        })
      ).status,
    ).toBe(200);
    const t0 = Date.now() - 120_000;
    for (let step = 0; step < 3; step++) {
      recordJournal(s.server.db, {
        run_id: 'run_seed',
        agent: 'helpdesk',
        channel: 'chan_web',
        step,
        tool: step === 1 ? 'search' : null,
        status: 'succeeded',
        started_ms: t0 + step * 1000,
        ended_ms: t0 + step * 1000 + 400,
        input_tokens: 100,
        output_tokens: 20,
      });
    }
    before = domainSnapshot(s);
    auditSeq = (s.server.db.prepare('SELECT max(seq) AS n FROM audit').get() as { n: number }).n;
    t = await startDashboard(s, 'auditor', 'auditor');
  }, 60_000);
  afterAll(async () => {
    await t?.kill();
    await killTmuxServer();
    await s?.close();
  });

  it('starts read-only: the header says so', async () => {
    await t.waitForScreen(/aude-auditor \(auditor\) READ-ONLY\s+·\s+● connected/);
  });

  it(`walks every screen with Tab (${present.join(', ')}), presses every mutation key, and each one is refused without a request`, async () => {
    expect(present[0]).toBe((await t.capture()).match(/\[(\w+)\]/)?.[1]);
    for (const [i, screen] of screens.entries()) {
      if (i > 0) await t.sendKeys('tab');
      const arrived = await t.waitUntil(
        (x) => x.includes(`[${screen.name}]`) && /updated (?:just now|\d+ s ago)/.test(x),
        `the ${screen.name} screen with data`,
      );
      expect(arrived, `${screen.name} on arrival`).toMatch(/READ-ONLY/);
      expect(arrived, `${screen.name} on arrival`).not.toMatch(TROUBLE);
      if (EXPECTED[screen.name]) await t.waitForScreen(EXPECTED[screen.name]);
      for (const action of (screen.actions ?? []).filter((a) => a.mutates)) {
        await t.sendKeys(defaultKeys(action)[0]);
        await t.waitForScreen(
          new RegExp(`${escapeRegExp(action.label)}: disabled: role auditor is read-only\\. Nothing was sent\\.`),
        );
      }
      const after = await t.capture();
      expect(after, `${screen.name} after its keys`).not.toMatch(TROUBLE);
      expect(after).toContain(`[${screen.name}]`);
    }
    // Round trip: one more Tab wraps to the first screen, Shift-Tab goes back to the last.
    await t.sendKeys('tab');
    await t.waitForScreen(`[${present[0]}]`);
    await t.sendKeys('shift-tab');
    await t.waitForScreen(`[${present[present.length - 1]}]`);
  }, 40_000);

  it('help lists the mutation keys as disabled, with the reason', async () => {
    await t.sendKeys(':');
    await t.type('keys');
    await t.sendKeys('enter');
    await t.waitForScreen('[keys]');
    await t.sendKeys('?');
    const help = await t.waitForScreen('Help · Esc or ? to close');
    for (const a of screens.find((x) => x.name === 'keys')!.actions!.filter((x) => x.mutates)) {
      expect(help).toMatch(
        new RegExp(`${escapeRegExp(a.label)} \\(changes the appliance\\) — ✕ role auditor is read-only`),
      );
    }
    await t.sendKeys('esc');
    await t.waitForGone('Help · Esc or ? to close');
  });

  it.skipIf(!present.includes('journal'))(
    'may export: the journal export is written and audited as an export',
    async () => {
      await t.sendKeys(':');
      await t.type('journal');
      await t.sendKeys('enter');
      await t.waitForScreen(EXPECTED.journal);
      await t.sendKeys('w');
      await t.waitForScreen('Export the agent journal');
      await t.sendKeys('enter');
      const done = await t.waitForScreen(/Export written[\s\S]*sha256\s+[0-9a-f]{64}/);
      // a long path goes on a line of its own under "path"
      const path = /path\s+(?:│\s+)*(\/\S+)/.exec(done)?.[1] ?? '';
      expect(existsSync(path)).toBe(true);
      expect(done).toContain(createHash('sha256').update(readFileSync(path)).digest('hex'));
      expect(done).toMatch(/rows\s+3\b/);
      await t.sendKeys('enter');
      await t.waitForGone('Export written');
    },
  );

  it('quits with q (exit 0); nothing changed on the server and no request was refused', async () => {
    await t.sendKeys('q');
    const status = await t.waitForExit();
    expect(status, await t.stderr()).toBe(0);
    expect(domainSnapshot(s)).toEqual(before);
    const since = s.server.db
      .prepare('SELECT actor_subject, action, outcome FROM audit WHERE seq > ? ORDER BY seq')
      .all(auditSeq) as { actor_subject: string; action: string; outcome: string }[];
    // Only exports, by the auditor; a denied entry would mean a mutation reached the server.
    expect(
      since.filter(
        (e) => !(e.actor_subject === 'aude-auditor' && e.action.endsWith('.export') && e.outcome === 'success'),
      ),
    ).toEqual([]);
  });

  // A screen the issue names that does not exist yet is not walked; the run says which.
  for (const name of missing)
    it.skip(`${name}: named in the issue but not in screens/index.ts yet, so not walked`, () => undefined);
});
