import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { request } from 'undici';
import { screens } from '../../screens/index.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { e2eTitle, escapeRegExp, startDashboard, TROUBLE } from '../helpers/e2e.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, killTmuxServer, type TmuxSession } from '../helpers/tmux.js';

/**
 * An it_admin drives the BUILT dashboard in a real terminal (tmux) against the real server:
 * every change is made from the keyboard, then checked on the server and on the screen.
 * The steps share one dashboard and run in order.
 */
const title = e2eTitle('it_admin in tmux');
const has = (name: string) => screens.some((x) => x.name === name);

describe.skipIf(!hasTmux())(title, () => {
  let s: TestServer;
  let t: TmuxSession;
  let secret = '';

  beforeAll(async () => {
    await ensureBuilt();
    s = await startTestServer();
    t = await startDashboard(s, 'it_admin', 'admin');
    await t.waitForScreen(/alice-admin \(it_admin\).*● connected/);
  }, 60_000);
  afterAll(async () => {
    await t?.kill();
    await killTmuxServer();
    await s?.close();
  });

  /** `:name` Enter, then wait until the screen's data is there. */
  async function go(name: string) {
    await t.sendKeys(':');
    await t.type(name);
    await t.sendKeys('enter');
    const screen = await t.waitUntil(
      (x) => x.includes(`[${name}]`) && /updated (?:just now|\d+ s ago)/.test(x),
      `the ${name} screen with data`,
    );
    expect(screen).not.toMatch(TROUBLE);
  }

  /** Narrows the list to the rows matching `text` (the cursor lands on the first). */
  async function select(text: string) {
    await t.sendKeys('/');
    await t.type(text);
    await t.sendKeys('enter');
    await t.waitForScreen(`filter: ${text}`);
  }

  /** The result dialog of a change: its audit entry, checked against the audit table. */
  async function result(titleText: string | RegExp, action: string, timeoutMs?: number): Promise<string> {
    const screen = await t.waitForScreen(
      typeof titleText === 'string' ? new RegExp(`DONE\\s+${escapeRegExp(titleText)}`) : titleText,
      timeoutMs,
    );
    const id = /Audit entry (aud_\w+)/.exec(screen)?.[1];
    expect(id, screen).toBeDefined();
    const row = s.server.db.prepare('SELECT * FROM audit WHERE id = ?').get(id) as Record<string, unknown>;
    expect(row).toMatchObject({ action, actor_subject: 'alice-admin', actor_role: 'it_admin', outcome: 'success' });
    expect(screen).toContain(`action   ${action}`);
    return screen;
  }

  async function closeDialog(titleText: string) {
    await t.sendKeys('enter');
    await t.waitForGone(titleText);
  }

  const keyRow = () =>
    s.server.db.prepare("SELECT * FROM gateway_keys WHERE name = 'e2e-bot'").get() as
      Record<string, unknown> | undefined;
  const gatewayCall = async (workload = 'chat') => {
    const r = await request(`${s.url}/v1/gateway/${workload}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ max_tokens: 1 }),
    });
    return { status: r.statusCode, json: (await r.body.json()) as Record<string, unknown> };
  };

  it('creates a key: the secret is shown once in a dialog that says so, and is gone when it closes', async () => {
    await go('keys');
    await t.sendKeys('n');
    await t.waitForScreen('Create a gateway key');
    await t.type('e2e-bot');
    await t.sendKeys('tab');
    await t.type('60');
    await t.sendKeys('enter');
    const dialog = await t.waitForScreen('This secret will not be shown again');
    expect(dialog).toContain('Secret for e2e-bot');
    secret = /(agk_[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/.exec(dialog)?.[1] ?? '';
    expect(secret, dialog).not.toBe('');

    const row = keyRow();
    expect(row).toMatchObject({
      status: 'active',
      requests_per_minute: 60,
      tokens_per_minute: null,
      created_by: 'alice-admin',
    });
    expect(secret.startsWith(String(row!.prefix))).toBe(true);
    // the secret on screen is the real one: the gateway takes it
    expect((await gatewayCall()).status).toBe(200);

    await t.sendKeys('enter');
    const done = await result('Key created', 'gateway.key.create');
    expect(done).not.toContain(secret);
    await closeDialog('Key created');
    const list = await t.waitForScreen(/e2e-bot\s+active\s+agk_\S+\s+60 \/ ∞ \/ ∞/);
    expect(list).not.toContain(secret);
    expect(list).not.toMatch(TROUBLE);
  });

  it('sets the key quota through the form', async () => {
    await select('e2e-bot');
    await t.sendKeys('u');
    await t.waitForScreen('Quota for e2e-bot');
    await t.sendKeys('tab'); // requests/min keeps 60; on to tokens/min
    await t.type('40000');
    await t.sendKeys('enter');
    const done = await result('Quota saved', 'gateway.key.quota');
    expect(done).toContain('e2e-bot: 60 requests/min, 40,000 tokens/min, unlimited tokens/day.');
    expect(keyRow()).toMatchObject({
      status: 'active',
      requests_per_minute: 60,
      tokens_per_minute: 40_000,
      tokens_per_day: null,
    });
    await closeDialog('Quota saved');
    await t.waitForScreen(/e2e-bot\s+active\s+agk_\S+\s+60 \/ 40k \/ ∞/);
  });

  it('revokes the key after its name is typed exactly', async () => {
    await t.sendKeys('x');
    await t.waitForScreen('Revoke e2e-bot?');
    await t.type('e2e-bo');
    await t.sendKeys('enter');
    await t.waitForScreen('does not match; nothing was sent');
    expect(keyRow()).toMatchObject({ status: 'active' });
    await t.type('t');
    await t.sendKeys('enter');
    await result('Key revoked', 'gateway.key.revoke');
    expect(keyRow()).toMatchObject({ status: 'revoked' });
    expect(keyRow()!.revoked_at).toEqual(expect.any(String));
    expect((await gatewayCall()).status).toBe(401);
    await closeDialog('Key revoked');
    await t.waitForScreen(/e2e-bot\s+revoked\s+agk_/);
    await t.sendKeys('esc'); // clear the filter
    await t.waitForGone('filter: e2e-bot');
  });

  it('toggles a channel, confirming (the focus starts on Cancel)', async () => {
    await go('channels');
    await select('Web chat');
    await t.sendKeys(' ');
    await t.waitForScreen('Disable channel Web chat?');
    await t.sendKeys('enter'); // Enter on the default button cancels
    await t.waitForGone('Disable channel Web chat?');
    expect(s.server.db.prepare("SELECT enabled FROM channels WHERE id = 'chan_web'").get()).toEqual({ enabled: 1 });

    await t.sendKeys(' ');
    await t.waitForScreen('Disable channel Web chat?');
    await t.sendKeys('right', 'enter');
    await result('Channel disabled', 'channel.update');
    expect(s.server.db.prepare("SELECT enabled FROM channels WHERE id = 'chan_web'").get()).toEqual({ enabled: 0 });
    await closeDialog('Channel disabled');
    await t.waitForScreen(/Web chat\s+chan_web\s+○ disabled/);
    await t.sendKeys('esc');
  });

  it.skipIf(!has('models'))('activates a model', async () => {
    await go('models');
    await select('Mistral');
    await t.sendKeys('a');
    await t.waitForScreen('Activate Mistral 7B Instruct?');
    await t.sendKeys('right', 'enter');
    await result('Model activated', 'model.activate');
    const models = (await s.call('GET', '/models')).json.data as { id: string; active: boolean }[];
    expect(models.filter((m) => m.active).map((m) => m.id)).toEqual(['mistral-7b']);
    await closeDialog('Model activated');
    await t.sendKeys('esc');
    await t.waitForScreen(/Mistral 7B Instruct\s+\S+ present\s+◆ ACTIVE/);
    expect(await t.capture()).not.toMatch(/Llama 3\.1 8B Instruct\s+\S+ present\s+◆ ACTIVE/);
  });

  it.skipIf(!has('routing'))('reroutes a workload to a present model', async () => {
    await go('routing');
    await select('chat');
    await t.sendKeys('e');
    const picker = await t.waitForScreen('Route workload chat');
    expect(picker).not.toContain('Not downloaded 70B'); // only present models are offered
    await t.sendKeys('down');
    await t.waitForScreen(/› Llama 3\.1 8B Instruct/);
    await t.sendKeys('enter');
    // confirmed as an activation is: before → after, the workloads affected, Cancel first
    const confirm = await t.waitForScreen('Route chat?');
    expect(confirm).toContain('chat: mistral-7b → llama-3.1-8b');
    await t.sendKeys('right', 'enter');
    const done = await result('Routing updated', 'routing.update');
    expect(done).toContain('chat: follows the active model → llama-3.1-8b.');
    const routing = (await s.call('GET', '/routing')).json.data as {
      workload: string;
      model_id: string | null;
      effective_model_id: string;
    }[];
    expect(routing.find((r) => r.workload === 'chat')).toMatchObject({
      model_id: 'llama-3.1-8b',
      effective_model_id: 'llama-3.1-8b',
      updated_by: 'alice-admin',
    });
    await closeDialog('Routing updated');
    await t.waitForScreen(/chat\s+llama-3\.1-8b\s+llama-3\.1-8b/);
    await t.sendKeys('esc');
  });

  it('triggers an ingestion and follows the job until it has SUCCEEDED', async () => {
    await go('connectors');
    await select('Team share');
    await t.sendKeys('i');
    await t.waitForScreen('Ingest from Team share');
    await t.sendKeys('enter'); // its one source, Docs
    const done = await result(/DONE\s+Ingestion finished/, 'connector.ingest', 20_000);
    expect(done).toMatch(/SUCCEEDED\s+Team share \/ Docs/);
    const jobId = /job\s+(job_\w+)/.exec(done)?.[1];
    expect(s.server.db.prepare('SELECT state, items FROM jobs WHERE job_id = ?').get(jobId)).toEqual({
      state: 'succeeded',
      items: 3,
    });
    const conn = (
      (await s.call('GET', '/connectors')).json.data as { id: string; last_sync: Record<string, unknown> | null }[]
    ).find((c) => c.id === 'conn_docs');
    expect(conn!.last_sync).toMatchObject({ status: 'succeeded', job_id: jobId, items: 3 });
    await closeDialog('Ingestion finished');
    await t.waitForScreen(/Team share\s+document-sharing\s+healthy\s+\d+ s ago, 3 items/);
    await t.sendKeys('esc');
  });

  it.skipIf(!has('audit'))(
    'exports the audit trail to a file: the summary matches the file, the file matches the trail',
    async () => {
      await go('audit');
      await t.waitForScreen(/alice-admin \(it_admin\)\s+connector\.ingest/);
      await t.sendKeys('w');
      await t.waitForScreen('Export the audit trail');
      await t.sendKeys('enter'); // csv, to the default file name in the dashboard's directory
      const done = await t.waitForScreen(/Export written[\s\S]*sha256\s+[0-9a-f]{64}/);
      // a long path goes on a line of its own under "path"
      const path = /path\s+(?:│\s+)*(\/\S+\.csv)/.exec(done)?.[1] ?? '';
      const body = readFileSync(path);
      expect(done).toContain(`sha256  ${createHash('sha256').update(body).digest('hex')}`);
      expect(done).toContain(`bytes   ${body.length.toLocaleString('en-US')}`);
      // the checkpoint's value in the values' column, under its label (wider than the column)
      expect(done).toMatch(/│ checkpoint +│[^\n]*\n[^\n]*│ {9}\/\S/);
      const [header, ...rows] = parse(body) as string[][];
      expect(header.slice(0, 5)).toEqual(['id', 'at', 'actor.subject', 'actor.role', 'action']);
      expect(done).toMatch(new RegExp(`rows\\s+${rows.length}\\b`));
      // oldest first, every entry up to and including the export's own
      const trail = (await s.call('GET', '/audit?limit=500')).json.data as {
        id: string;
        action: string;
        actor: { subject: string };
      }[];
      expect(rows.map((r) => r[0])).toEqual(trail.map((e) => e.id).reverse());
      expect(rows.map((r) => r[4])).toEqual(
        expect.arrayContaining([
          'gateway.key.create',
          'gateway.key.quota',
          'gateway.key.revoke',
          'channel.update',
          'connector.ingest',
          'audit.export',
        ]),
      );
      expect(trail[0]).toMatchObject({ action: 'audit.export', actor: { subject: 'alice-admin' } });
      await t.sendKeys('enter');
      await t.waitForGone('Export written');
      await t.waitForScreen(/alice-admin \(it_admin\)\s+audit\.export/);
    },
  );

  it('quits with q: exit status 0', async () => {
    await t.sendKeys('q');
    const status = await t.waitForExit();
    expect(status, await t.stderr()).toBe(0);
    // the secret shown once is nowhere else: not on stderr, not in the audit trail
    expect(secret).toMatch(/^agk_/);
    expect(await t.stderr()).not.toContain(secret);
    expect(JSON.stringify(s.server.db.prepare('SELECT * FROM audit').all())).not.toContain(secret.slice(4));
  });
});
