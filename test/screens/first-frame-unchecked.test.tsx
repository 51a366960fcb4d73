import { afterEach, describe, expect, it } from 'vitest';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import { json } from '../helpers/hostile-server.js';
import { setupHostileFront } from '../helpers/hostile-front.js';

/**
 * The CLI's first frame shows its answers as sent (src/dashboard/shell/start.ts); a screen that draws itself
 * may fail on one the contract's check would have mended. It shows that failure only until the
 * checked read (Poller.firstFrameDrawn) brings the mended answer. Real server behind a scripted peer.
 */
let d: DashboardHarness | undefined;
const front = setupHostileFront({ demo: true });
afterEach(async () => {
  await d?.unmount();
  d = undefined;
  front.hostile.clear();
});

describe('a screen drawn from an unchecked first answer', () => {
  it('that fails to draw is drawn again once the checked read mends the answer', async () => {
    const deployment = (await front.server.call('GET', '/deployment')).json as { components: { version: unknown }[] };
    // a version sent as a number: the check makes it text, the deployment screen measures it as text
    deployment.components[0].version = 2;
    front.hostile.set('/deployment', json(deployment));
    d = renderDashboard({
      url: front.hostile.url,
      token: front.server.tokens.it_admin,
      screen: 'deployment',
      deferChecks: true,
      refreshMs: 60_000,
    });
    await d.waitForText('the deployment screen failed to draw');
    d.deps.poller.firstFrameDrawn();
    const frame = await d.waitFor((f) => !f.includes('failed to draw') && /Components/i.test(f), 'the mended screen');
    // the check reads the number as the text "2", which the components table shows as that component's version
    expect(frame).toMatch(/● \w+\s+\S+\s+2\s/);
  });
});
