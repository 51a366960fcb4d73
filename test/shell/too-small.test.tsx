import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const suite = setupScreenSuite();

/**
 * Lets the render just drawn run its effects (input hooks follow a render in its effects, which React's
 * scheduler runs on a later turn of the event loop): then the keys go where that render said. No frame
 * need follow: an idle dashboard draws none while nothing it shows changes.
 */
async function settled() {
  for (let turn = 0; turn < 3; turn++) await new Promise<void>((r) => setImmediate(r));
}

async function resize(d: ReturnType<typeof suite.render>, columns: number, rows: number, text: string) {
  await d.resize(columns, rows);
  const f = await d.waitForText(text);
  await settled();
  return f;
}

describe('a window below 60x20 (the compact layout starts there)', () => {
  it('keeps an open form with what was typed, ignores keys while small, stays raw, and shows it again', async () => {
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    await d.waitForText('keys');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('alice');
    await d.waitForText('alice');
    const offs = d.rawMode().offs;

    const small = await resize(d, 59, 20, 'needs at least 60x20');
    expect(small).not.toContain('Create a gateway key');
    // Esc would close the form, Enter submit it, letters land in the field: none of them may
    await d.press('esc', 'x', 'enter', ':');
    await settled();
    expect(d.rawMode()).toEqual({ on: true, offs });
    expect(d.exited()).toBe(false);

    // the compact layout draws it again, from 60x20
    const back = await resize(d, 60, 20, 'Create a gateway key');
    expect(back).toMatch(/Name\s+alice(?!x)/);
    expect(back).not.toContain('alicex');
    // the form has the keys again
    await d.type('-b');
    await d.waitForText('alice-b');
    expect(d.rawMode()).toEqual({ on: true, offs });
  });

  it('q quits while small, even with a form open', async () => {
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    await d.waitForText('keys');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await resize(d, 70, 19, 'press q to quit');
    await d.press('q');
    await d.waitFor(() => d.exited(), 'the dashboard to quit');
    expect(d.crashed()).toBeNull();
  });

  it('keeps the : command line and quits on Ctrl-C while small', async () => {
    const d = suite.render({ screen: 'channels', columns: 80, rows: 24 });
    await d.waitForText('Web chat');
    await d.press(':');
    await d.type('ke');
    await d.waitForText(':ke');
    await resize(d, 59, 30, 'needs at least 60x20');
    await d.press('y', 'enter');
    await settled();
    expect(d.rawMode().on).toBe(true);
    const back = await resize(d, 80, 24, ':ke');
    expect(back).not.toContain(':key');
    expect(back).toContain('[channels]');
    await resize(d, 80, 19, 'needs at least 60x20');
    await d.press('\x03');
    await d.waitFor(() => d.exited(), 'Ctrl-C to quit');
    expect(d.crashed()).toBeNull();
  });
});
