import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { keysScreen } from '../../screens/keys.js';
import { screens } from '../../screens/index.js';
import type { AnyScreen } from '../../src/dashboard/kit/screen-api.js';

// The keys screen joins its rows from two answers (the keys and the last hour's usage). Typing a
// `/` filter, which the screen applies to its rows itself, must not make those rows again on every
// key: the filter's index of them (each row's text) would be lost with them and made again for
// every row on every key, and every visible row drawn again.
const suite = setupScreenSuite({
  setup: async (s) => {
    for (const name of ['filter-alpha', 'filter-beta', 'other-gamma'])
      expect((await s.call('POST', '/gateway/keys', { body: { name } })).status).toBe(201);
  },
});

describe('a / filter on a list joined from several answers', () => {
  it('filters the rows it has without joining them again', async () => {
    let joined = 0;
    const list = keysScreen.list!;
    const counting = {
      ...keysScreen,
      list: {
        ...list,
        rows: (...args: Parameters<NonNullable<typeof list.rows>>) => {
          joined++;
          return list.rows!(...args);
        },
      },
    } as unknown as AnyScreen;
    const d = suite.render({ screen: 'keys', screens: screens.map((x) => (x.name === 'keys' ? counting : x)) });
    // both answers in: the rejections column says a count, not '–'
    await d.waitForText(/3 keys · 3 active · 0 rejected in the last hour/);
    // nothing changes on the appliance meanwhile: only the filter's keys may make rows again
    d.deps.poller.stop();
    const before = joined;

    await d.press('/');
    await d.type('filter-');
    await d.waitForText('2 of 3 match "filter-"');
    await d.type('b');
    await d.waitForText('1 of 3 match "filter-b"');
    await d.press('backspace', 'enter');
    const frame = await d.waitForText('2 of 3 match "filter-"');
    expect(frame).toContain('filter-alpha');
    expect(frame).not.toContain('other-gamma');
    await d.press('esc');
    await d.waitForText('other-gamma');

    expect(joined - before).toBe(0);
  });
});
