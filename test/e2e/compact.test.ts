import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screens } from '../../screens/index.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { e2eTitle, startDashboard, TROUBLE } from '../helpers/e2e.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { killTmuxServer, hasTmux, type TmuxSession } from '../helpers/tmux.js';
import { widthOf } from '../../src/dashboard/kit/text.js';

/**
 * The BUILT dashboard in a split tmux pane of 60x20, the smallest it draws: every screen is drawn
 * (the compact layout, not "needs at least"), within the width, with help and quit on its hint
 * line; keys keeps the last hour's rejections, and the keys still work (a form opens and closes).
 */
const title = e2eTitle('the compact layout at 60x20 in tmux');

describe.skipIf(!hasTmux())(title, () => {
  let s: TestServer;
  let t: TmuxSession;

  beforeAll(async () => {
    await ensureBuilt();
    s = await startTestServer();
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'compact-key' } })).status).toBe(201);
    t = await startDashboard(s, 'it_admin', 'compact', { cols: 60, rows: 20 });
  }, 60_000);
  afterAll(async () => {
    await t?.kill();
    await killTmuxServer();
    await s?.close();
  });

  it('draws every screen within 60 columns, with help and quit, and keys keeps Rej 1h', async () => {
    for (const [i, screen] of screens.entries()) {
      if (i > 0) await t.sendKeys('tab');
      const f = await t.waitUntil(
        (x) => x.includes(`[${screen.name}]`) && /updated (?:just now|\d+ s ago)/.test(x),
        `the ${screen.name} screen with data`,
      );
      expect(f, screen.name).not.toContain('needs at least');
      expect(f, screen.name).not.toMatch(TROUBLE);
      expect(
        f.split('\n').filter((l) => widthOf(l) > 60),
        screen.name,
      ).toEqual([]);
      expect(f.split('\n').find((l) => l.includes('? help')) ?? '', screen.name).toMatch(/q quit\s*$/);
      if (screen.name === 'keys') {
        const keys = await t.waitForScreen(/compact-key\s+active\s+.*\s\d+\s*$/m);
        expect(keys).toMatch(/^ {2}Name .*Rej 1h\s*$/m);
        // the keys work as at any size: n opens the new key's form, Esc closes it, nothing sent
        await t.sendKeys('n');
        await t.waitForScreen('Create a gateway key');
        await t.sendKeys('esc');
        await t.waitForGone('Create a gateway key');
      }
    }
  });
});
