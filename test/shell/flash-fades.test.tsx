import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { flash } from '../../src/dashboard/state/ui.js';

const suite = setupScreenSuite();

describe('a message on the status line', () => {
  it('fades once its 8 s are up, on an idle screen whose clock draws nothing meanwhile', async () => {
    const d = suite.render({ screen: 'channels', refreshMs: 500 });
    await d.waitForText('Web chat');
    const shown = Date.now();
    flash(d.deps.ui, 'the export was written to /tmp/x.csv');
    await d.waitForText('the export was written');
    await d.waitFor((f) => !f.includes('the export was written'), 'the message gone', 12_000);
    const after = Date.now() - shown;
    expect(after).toBeGreaterThanOrEqual(7900);
    // its own timer, not the screens' 10 s clock: gone within about a second of its time
    expect(after).toBeLessThan(9500);
  }, 20_000);
});
