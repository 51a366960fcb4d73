import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { offersFilter } from '../../src/dashboard/kit/screen-api.js';
import { screens } from '../../screens/index.js';

const suite = setupScreenSuite();

const hints = (f: string) => f.split('\n').at(-2) ?? '';
const statusLine = (f: string) => f.split('\n').at(-1) ?? '';

describe('/ filter is offered only where the screen filters', () => {
  it('every list and the custom views that filter (usage, settings) declare it; deployment and identity do not', () => {
    const offered = screens.filter(offersFilter).map((s) => s.name);
    expect(offered).toEqual(expect.arrayContaining(['keys', 'journal', 'usage', 'settings']));
    expect(offered).not.toContain('deployment');
    expect(offered).not.toContain('identity');
  });

  for (const [screen, text] of [
    ['deployment', 'Install plan'],
    ['identity', 'Identity-provider connectivity'],
  ] as const) {
    it(`${screen}: no / in the hints, and / opens no filter`, async () => {
      const d = suite.render({ screen });
      const f = await d.waitForText(text);
      expect(hints(f)).toContain(': screen');
      expect(hints(f)).not.toContain('/ filter');
      await d.press('/');
      const after = await d.waitForText(`the ${screen} screen has no / filter`);
      expect(after).not.toContain('type to filter rows');
      // the keys go to the screen, not to a filter line
      await d.type('zz');
      await d.press('esc');
      await d.waitFor((x) => !x.includes('has no / filter'), 'the next key to clear the message');
      expect(statusLine(d.frame())).not.toMatch(/filter|zz/);
    });
  }

  it('help lists / only where it filters', async () => {
    const d = suite.render({ screen: 'deployment' });
    await d.waitForText('Install plan');
    await d.press('?');
    const help = await d.waitForText('Keys everywhere');
    expect(help).not.toContain('filter the rows');
    await d.press('esc', ':', ...'channels', 'enter');
    await d.waitForText('Web chat');
    await d.press('?');
    expect(await d.waitForText('Keys everywhere')).toContain('filter the rows');
  });

  it('a list still offers it', async () => {
    const d = suite.render({ screen: 'channels' });
    const f = await d.waitForText('Web chat');
    expect(hints(f)).toContain('/ filter');
    await d.press('/');
    await d.waitForText('type to filter rows');
  });
});
