import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from '../helpers/child-server.js';
import { writeTokenFile } from '../helpers/cli.js';
import { e2eTitle } from '../helpers/e2e.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, killTmuxServer, TmuxSession } from '../helpers/tmux.js';

/**
 * The BUILT dashboard in a real terminal: it turns bracketed paste on, so a paste (tmux
 * paste-buffer -p) reaches the focused field as one line instead of as keys, and turns it off
 * again when it ends (a `cat -v` run after it in the same terminal then sees a plain paste).
 */
describe.skipIf(!hasTmux())(e2eTitle('pasting into the dashboard in tmux'), () => {
  let s: TestServer;
  let t: TmuxSession;
  const audited = () => (s.server.db.prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number }).n;

  beforeAll(async () => {
    await ensureBuilt();
    s = await startTestServer();
    const tokenFile = writeTokenFile(s.tokens.it_admin);
    t = await TmuxSession.start({
      name: 'paste',
      cwd: tempDir('aa-e2e-cwd'),
      command: [
        '/bin/sh',
        '-c',
        '"$@"; echo DASHBOARD-ENDED; exec cat -v',
        'sh',
        process.execPath,
        CLI,
        '--url',
        s.url,
        '--token-file',
        tokenFile,
        '--screen',
        'connectors',
      ],
      env: { NODE_OPTIONS: '', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', XDG_CACHE_HOME: tempDir('aa-e2e-cache') },
    });
    await t.waitForScreen(/alice-admin \(it_admin\).*● connected/);
  }, 60_000);
  afterAll(async () => {
    await t?.kill();
    await killTmuxServer();
    await s?.close();
  });

  it('a paste into the / filter is one line of text: its line breaks run nothing', async () => {
    await t.waitForScreen('Team share');
    const before = audited();
    await t.sendKeys('/');
    await t.waitForScreen('type to filter rows');
    await t.paste('database\ningest now\n');
    const screen = await t.waitForScreen('/database ingest now');
    expect(screen).toContain('Enter keep · Esc clear');
    // a key typed after the paste still lands in the filter: the paste's line breaks ran nothing
    await t.type('!');
    expect(await t.waitForScreen('/database ingest now!')).not.toMatch(/Ingest from|Ingestion/);
    expect(audited()).toBe(before);
    await t.sendKeys('esc');
    await t.waitForScreen('Team share');
  });

  it('Ctrl+F1-F4 do nothing (they used to end the dashboard)', async () => {
    // what the terminal sends for them (tmux send-keys C-F1 …)
    for (const seq of ['\x1b[1;5P', '\x1b[1;5Q', '\x1b[1;5R', '\x1b[1;5S']) await t.type(seq);
    // the key after them acts: the dashboard is still there
    await t.sendKeys('tab');
    await t.waitForScreen('[channels]');
    expect(await t.exitStatus()).toBeNull();
    expect(await t.capture()).not.toContain('DASHBOARD-ENDED');
    await t.sendKeys('shift-tab');
    await t.waitForScreen('Team share');
  });

  it('bracketed paste is off again after the dashboard ends', async () => {
    await t.sendKeys('q');
    await t.waitForScreen('DASHBOARD-ENDED');
    await t.paste('after-the-dashboard\n');
    const screen = await t.waitForScreen('after-the-dashboard');
    expect(screen).not.toContain('[200~');
  });
});
