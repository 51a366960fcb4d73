import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { e2eTitle, startDashboard, until } from '../helpers/e2e.js';
import { setupHostileFront } from '../helpers/hostile-front.js';
import { json } from '../helpers/hostile-server.js';
import { hasTmux, killTmuxServer, type TmuxSession } from '../helpers/tmux.js';

/**
 * The BUILT dashboard draws its first frame from answers read as sent, then reads them again with
 * the contract's check (src/dashboard/shell/start.ts, docs/performance.md): the session and the first screen's
 * list are asked twice as it starts, then only at each refresh; an answer that does not fit the
 * contract is named a moment after the first frame. The real server behind a counting peer.
 */
describe.skipIf(!hasTmux())(e2eTitle('the first frame, checked right after it is drawn'), () => {
  const front = setupHostileFront({ before: ensureBuilt, timeoutMs: 60_000 });
  let t: TmuxSession | undefined;
  const through = () => ({ ...front.server, url: front.hostile.url });

  afterAll(async () => {
    await t?.kill();
    await killTmuxServer();
  });

  it('asks for the session and the connectors once more right after the first frame, then waits for the refresh', async () => {
    t = await startDashboard(through(), 'it_admin', 'first-check', {
      args: ['--screen', 'connectors', '--refresh', '60s'],
    });
    await t.waitForScreen('Team share');
    // the checked read right after the first frame: waited for as it comes (a loaded CI host is slow to send it)
    await until('the session read again', () => front.hostile.count('GET /session') >= 2, 10_000);
    // then nothing more until the refresh (60 s): seconds pass on the header's own clock, with no third read.
    // The session is always in the first frame, so always read again; the list is too unless its answer came
    // after that frame (a loaded host), when it was checked as it came and is not asked again.
    await t.waitForScreen(/updated [2-9] s ago/);
    expect(front.hostile.count('GET /session')).toBe(2);
    expect([1, 2]).toContain(front.hostile.count('GET /connectors'));
    expect(await t.capture()).not.toContain('does not fit the contract');
    await t.kill();
    t = undefined;
  });

  it('names an answer that does not fit the contract, though the first frame showed it as sent', async () => {
    front.hostile.set(
      '/connectors',
      json({
        data: [
          { id: 'c1', name: 'Odd share', kind: 'crm', state: 'healthy', last_sync: null, rbac_labels: [], sources: 3 },
        ],
        next_cursor: null,
        has_more: false,
      }),
    );
    t = await startDashboard(through(), 'it_admin', 'first-check-odd', {
      args: ['--screen', 'connectors', '--refresh', '60s'],
    });
    const screen = await t.waitForScreen(/does not fit the contract \(1 issue\): data\.0\.sources/);
    expect(screen).toContain('Odd share');
  });

  it('the overview: its session and first resource are read twice, the resources asked after its first frame once', async () => {
    await t?.kill();
    front.hostile.clear();
    front.hostile.requests.length = 0;
    t = await startDashboard(through(), 'it_admin', 'first-check-overview', { args: ['--refresh', '60s'] });
    await t.waitForScreen(/things? need attention|Nothing needs attention/);
    await until('the session read again', () => front.hostile.count('GET /session') >= 2);
    await t.waitForScreen(/updated [2-9] s ago/);
    // as on the connectors screen: the deployment is read again unless its answer came after the first frame (a
    // loaded host), when it was checked as it came; what is asked after the first frame is asked once
    expect(front.hostile.count('GET /session')).toBe(2);
    expect([1, 2]).toContain(front.hostile.count('GET /deployment'));
    expect(front.hostile.count('GET /connectors')).toBe(1);
  });
});
