import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const suite = setupScreenSuite();

/**
 * The overview asks for the keys only every 10 s; the keys screen, opened from it, wants them at
 * every refresh and must not show the overview's older answer (marked late) until the next one.
 * The refresh here is a minute, so only the fetch made on switching can show the new key.
 */
describe('switching to a screen that wants fresher data than the last one polled', () => {
  it('the keys screen opened from the overview asks for the keys at once', async () => {
    const d = suite.render({ screen: 'overview', refreshMs: 60_000 });
    await d.waitForText('Enter opens the cause', 10_000);
    await d.deps.poller.firstRound(10_000); // the overview's slow resources have answered
    expect((await suite.server.call('POST', '/gateway/keys', { body: { name: 'made-after-the-board' } })).status).toBe(
      201,
    );
    await d.press(':');
    await d.type('keys');
    await d.press('enter');
    await d.waitForText('made-after-the-board', 3_000);
  });
});
