import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { KEYS_INK_CANNOT_NAME } from '../helpers/tty-stdin.js';

/**
 * The whole dashboard fed the way a terminal feeds it (through the CLI's KeyStdin): keys Ink
 * cannot name, bracketed pastes, Esc batched with the next key.
 */
const suite = setupScreenSuite();
const header = (f: string) => f.split('\n').slice(0, 2).join('\n');
const statusLine = (f: string) => f.split('\n').at(-1) ?? '';

async function keysForm(d: DashboardHarness) {
  await d.waitFor((f) => header(f).includes('[keys]') && /updated (?:just now|\d+ s ago)/.test(f), 'the keys screen');
  await d.press('n');
  return d.waitForText('Create a gateway key');
}

/** The Name field's line in the key form. */
const nameLine = (f: string) => f.split('\n').find((l) => l.includes('› Name')) ?? '';

describe('keys Ink cannot name (Ctrl+F1-F4, F13+, …)', () => {
  const unnamed = KEYS_INK_CANNOT_NAME;

  it('do nothing on a screen, nor in an open form: the dashboard goes on', async () => {
    const d = suite.render({ keyStdin: true, screen: 'keys' });
    await d.waitFor((f) => header(f).includes('[keys]') && /updated (?:just now|\d+ s ago)/.test(f), 'the keys screen');
    for (const seq of unnamed) await d.write(seq);
    // the key after them acts
    await d.press('n');
    await d.waitForText('Create a gateway key');
    expect(d.crashed()).toBeNull();
    expect(d.exited()).toBe(false);
    await d.type('bot');
    for (const seq of unnamed) await d.write(seq);
    await d.type('!');
    await d.waitFor((f) => /Name\s+bot!/.test(nameLine(f)), 'the key after them typed');
    expect(d.crashed()).toBeNull();
    // and the keys around them still work
    await d.press('esc');
    await d.waitFor((f) => !f.includes('Create a gateway key'), 'the form closed');
    expect(d.exited()).toBe(false);
  });
});

describe('a bracketed paste is text, never keys', () => {
  it('into the / filter: one line, no Enter, no commands (the audit ran an ingestion this way)', async () => {
    const d = suite.render({ keyStdin: true, screen: 'connectors' });
    await d.waitForText('Team share');
    const audited = suite.auditRows().length;
    await d.press('/');
    await d.waitForText('type to filter rows');
    await d.paste('database\ringest now\r');
    const f = await d.waitForText('/database ingest now');
    expect(f).toContain('Enter keep · Esc clear'); // still typing the filter
    // a key typed after the paste still lands in the filter: the paste's rest did nothing else
    await d.type('!');
    await d.waitForText('/database ingest now!');
    expect(d.frame()).not.toMatch(/Ingest from|Ingestion/);
    expect(suite.auditRows().length).toBe(audited);
    await d.press('esc');
    await d.waitForText('Team share');
  });

  it('into a form field: the rest of the paste neither submits the form nor closes a secret', async () => {
    const d = suite.render({ keyStdin: true, screen: 'keys' });
    await keysForm(d);
    const audited = suite.auditRows().length;
    await d.paste('ops-bot-7\rowner: finance team\r');
    await d.waitFor((f) => /Name\s+ops-bot-7 owner: finance team/.test(nameLine(f)), 'the pasted name');
    // a key typed after the paste still lands in the field: the paste's rest did nothing else
    await d.type('!');
    await d.waitFor((f) => /Name\s+ops-bot-7 owner: finance team!/.test(nameLine(f)), 'the key after the paste');
    expect(d.frame()).toContain('Create a gateway key');
    expect(d.frame()).not.toContain('will not be shown again');
    expect(suite.auditRows().length).toBe(audited);
    await d.press('esc');
  });

  it('with no text field focused it is dropped, with a note; a paste of q does not quit', async () => {
    const d = suite.render({ keyStdin: true, screen: 'connectors' });
    await d.waitForText('Team share');
    await d.paste('q');
    await d.waitFor((f) => statusLine(f).includes('paste ignored'), 'the note');
    expect(d.exited()).toBe(false);
    await d.press('tab');
    await d.waitFor((f) => header(f).includes('[channels]'), 'keys still work');
  });

  it('3,000 characters land at once, and Esc right after is handled at once', async () => {
    const d = suite.render({ keyStdin: true, screen: 'connectors' });
    await d.waitForText('Team share');
    await d.press('/');
    await d.waitForText('type to filter rows');
    const t0 = Date.now();
    await d.paste('database ingest now\r'.repeat(150));
    // the filter takes 500 characters and shows their end
    await d.waitForText(/\/…[a-z ]*database ingest now/, 2000);
    await d.press('esc');
    await d.waitForText('Team share', 2000);
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});

describe('Esc batched with the next key (tmux, a slow link)', () => {
  it('is Esc, then that key: the form closes and the key acts', async () => {
    const d = suite.render({ keyStdin: true, screen: 'keys' });
    await keysForm(d);
    await d.write('\x1b?');
    const f = await d.waitForText('Keys everywhere');
    expect(f).not.toContain('Create a gateway key');
  });
});
