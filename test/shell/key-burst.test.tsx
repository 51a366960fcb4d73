import { describe, expect, it } from 'vitest';
// renamed: a vitest set-up helper, not a React hook
import { setupScreenSuite as screenSuite } from '../helpers/screen-suite.js';

/**
 * Keys that arrive in one read (fast typing, tmux send-keys, a slow link): a key that opens a form
 * or the filter must not take the rest of the burst with it. KeyStdin hands them over one at a
 * time with a turn of the event loop between them, in which the new input's handler attaches.
 */
const suite = screenSuite();
const header = (f: string) => f.split('\n').slice(0, 2).join('\n');

describe('a burst of keys in one read', () => {
  it('opens the key form and types the rest of the burst into it', async () => {
    const d = suite.render({ keyStdin: true, screen: 'keys' });
    await d.waitFor((f) => header(f).includes('[keys]') && /updated (?:just now|\d+ s ago)/.test(f), 'the keys screen');
    await d.write('nops-bot');
    const f = await d.waitFor((fr) => /› Name\s+ops-bot/.test(fr), 'the name typed into the form');
    expect(f).toContain('Create a gateway key');
    await d.press('esc');
  });

  it('opens the filter and types the rest of the burst into it', async () => {
    const d = suite.render({ keyStdin: true, screen: 'connectors' });
    await d.waitForText('Team share');
    await d.write('/team');
    await d.waitForText('/team');
    await d.press('esc');
    await d.waitFor((f) => !f.includes('/team'), 'the filter cleared');
  });
});
