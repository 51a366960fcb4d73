import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/contract/index.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { startDashboard, until } from '../helpers/e2e.js';
import { setupHostileFront } from '../helpers/hostile-front.js';
import { hasTmux, killTmuxServer, type TmuxSession } from '../helpers/tmux.js';

/**
 * The BUILT dashboard in screen-reader mode in a real terminal: lines added to the normal screen
 * as things change, never a redrawn frame.
 */
const QUOTA = { requests_per_minute: 60, tokens_per_minute: 40_000, tokens_per_day: 800_000 };
const BOX_DRAWING = /[\u2500-\u257f]/;
const SPARKLINE = /[\u2581-\u2588]/;

const RUNS: { role: Role; cols: number; rows: number; how: 'flag' | 'env' }[] = [
  { role: 'it_admin', cols: 120, rows: 40, how: 'flag' },
  { role: 'auditor', cols: 80, rows: 24, how: 'env' },
  // smaller than the shell's frame: nothing is drawn, so nothing is too small
  { role: 'app_owner', cols: 70, rows: 20, how: 'flag' },
];

describe.skipIf(!hasTmux())('screen-reader mode in tmux', () => {
  // the dashboard talks through the peer, which passes everything on and counts its requests
  const front = setupHostileFront({ before: ensureBuilt, timeoutMs: 60_000 });
  const sessions: TmuxSession[] = [];

  beforeAll(async () => {
    for (const name of ['sr-one', 'sr-two']) {
      const res = await front.server.call('POST', '/gateway/keys', { body: { name, quota: QUOTA } });
      expect(res.status).toBe(201);
    }
  });
  afterAll(async () => {
    for (const t of sessions) await t.kill();
    await killTmuxServer();
  });

  for (const run of RUNS) {
    it(`${run.role} at ${run.cols}x${run.rows} (${run.how === 'flag' ? '--screen-reader' : 'INK_SCREEN_READER=true'}): one line per cursor move, nothing for an unchanged refresh`, async () => {
      const args = ['--screen', 'keys', '--refresh', '300ms', ...(run.how === 'flag' ? ['--screen-reader'] : [])];
      const env: Record<string, string> = run.how === 'env' ? { INK_SCREEN_READER: 'true' } : {};
      const t = await startDashboard({ ...front.server, url: front.hostile.url }, run.role, `sr-${run.role}`, {
        args,
        env,
        cols: run.cols,
        rows: run.rows,
      });
      sessions.push(t);
      await t.waitForScreen(/Gateway keys screen, list of 2 rows, cursor on row 1: Name sr-/);

      await t.sendKeys('down');
      const moved = await t.waitForScreen(/row 2 of 2: Name sr-(one|two), Status active/);
      // the whole row, its column names with it, wrapped by the terminal at 80 columns
      expect(moved.replace(/\n/g, '')).toMatch(
        /row 2 of 2: Name sr-\w+, Status active, .*Quota rpm\/tpm\/tpd 60 \/ 40k \/ 800k/,
      );
      // refreshes every 300 ms, nothing changed: three of them add nothing
      const polls = front.hostile.count('GET /gateway/keys');
      await until('three more refreshes', () => front.hostile.count('GET /gateway/keys') >= polls + 3);
      expect(await t.capture()).toBe(moved);
      expect(moved.match(/row \d of 2:/g)).toHaveLength(1);
      expect(moved).not.toMatch(BOX_DRAWING);
      expect(moved).not.toMatch(SPARKLINE);

      if (run.role === 'auditor') {
        await t.sendKeys('n');
        await t.waitForScreen(/new key: disabled: role auditor is read-only\. Nothing was sent\./);
      }
      await t.sendKeys('q');
      expect(await t.waitForExit()).toBe(0);
    }, 60_000);
  }
});
