import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { e2eTitle, startDashboard } from '../helpers/e2e.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, killTmuxServer, type TmuxSession } from '../helpers/tmux.js';

/** The BUILT dashboard in tmux: a revoke shows in :log with its command; a field edits like readline. */
describe.skipIf(!hasTmux())(e2eTitle('the action log and readline keys in tmux'), () => {
  let s: TestServer;
  let t: TmuxSession;
  let secret: string;

  beforeAll(async () => {
    await ensureBuilt();
    s = await startTestServer();
    const created = await s.call('POST', '/gateway/keys', { body: { name: 'tmux-key' } });
    expect(created.status).toBe(201);
    secret = (created.json as { secret: string }).secret;
    t = await startDashboard(s, 'it_admin', 'action-log', { args: ['--screen', 'keys'] });
    await t.waitForScreen(/tmux-key\s+active/);
  }, 60_000);
  afterAll(async () => {
    await t?.kill();
    await killTmuxServer();
    await s?.close();
  });

  it('a revoke from the keys screen is in :log with its curl command, and no token or secret', async () => {
    await t.sendKeys('x');
    await t.waitForScreen('Type tmux-key to confirm');
    await t.type('tmux-key');
    await t.sendKeys('enter');
    await t.waitForScreen('Key revoked');
    await t.sendKeys('enter', ':');
    await t.type('log');
    await t.sendKeys('enter');
    await t.waitForScreen(/POST\s+\/gateway\/keys\/key_\w+\/revoke\s+200/);
    // Enter: the audit entry the revoke produced, beside its command
    await t.sendKeys('enter');
    const detail = await t.waitForScreen(/Audit entry #\d+[\s\S]*gateway\.key\.revoke/);
    expect(detail.replace(/[│\s]+/g, '')).toContain(`curl-XPOST-H"Authorization:Bearer$TOKEN"'${s.url}/v1/admin/`);
    expect(detail).not.toContain(s.tokens.it_admin);
    expect(detail).not.toContain(secret);
    await t.sendKeys('esc');
  });

  it('the / filter takes Ctrl-W, Ctrl-A and Alt-F from a real terminal', async () => {
    await t.sendKeys('/');
    await t.type('alpha beta');
    await t.type('\x17'); // Ctrl-W
    await t.waitForScreen(/\/alpha \s*Enter keep/);
    await t.type('\x01'); // Ctrl-A
    await t.type('>');
    await t.type('\x1bf'); // Alt-F
    await t.type('<');
    await t.waitForScreen(/\/>alpha< \s*Enter keep/);
    await t.sendKeys('esc');
  });
});
