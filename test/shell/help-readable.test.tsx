import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { keymapOf } from '../../src/dashboard/shell/keymap.js';
import { shellHelp } from '../../src/dashboard/shell/key-help.js';
import { offersOf, sortNote } from '../../src/dashboard/shell/screen-hints.js';
import { commandHelp } from '../../src/dashboard/shell/commands.js';
import { widthOf } from '../../src/dashboard/kit/text.js';

const suite = setupScreenSuite({
  setup: async (s) => {
    const res = await s.call('POST', '/gateway/keys', { body: { name: 'help-key' } });
    expect(res.status).toBe(201);
  },
});

const plain = (f: string) => f.replace(/\x1b\[[0-9;]*m/g, '');
const MARKER = /^… (?:(\d+) more below \(↓ PgDn\)(?:, (\d+) above)?|(\d+) above \(↑ PgUp\))$/;

/**
 * Pages through the open help with PgDn and returns its lines in order, each placed by the "more"
 * marker's count of lines above, so a page boundary neither doubles nor drops a line.
 */
async function readHelp(d: DashboardHarness, rows: number): Promise<string[]> {
  const lines: string[] = [];
  let frame = plain(await d.waitForText('Keys everywhere'));
  for (let page = 0; page < 20; page++) {
    const all = frame.split('\n');
    const start = all.findIndex((l) => l.startsWith('Help · Esc'));
    const end = all.findIndex((l, i) => i > start && MARKER.test(l));
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    // the header above, the hints and status below: the help stays inside the terminal
    expect(all.length).toBeLessThan(rows);
    const m = MARKER.exec(all[end])!;
    const top = Number(m[2] ?? m[3] ?? 0);
    all.slice(start + 1, end).forEach((l, i) => (lines[top + i] = l));
    if (!m[1]) return lines;
    await d.press('pgdn');
    frame = plain(await d.waitFor((f) => plain(f) !== frame, 'the next page of help'));
  }
  throw new Error('the help did not reach its end');
}

const squeezed = (s: string) => s.replace(/\s+/g, '');

describe('? help at 80x24', () => {
  it('wraps every description at word boundaries and scrolls to the last line: nothing is cut', async () => {
    const d = suite.render({ role: 'auditor', screen: 'keys', columns: 80, rows: 24 });
    // the role is known and a row is selected: every action's help says why it is off
    await d.waitForText(/READ-ONLY[\s\S]*row 1 of/);
    await d.press('?');
    const lines = await readHelp(d, 24);
    expect(lines.every((l) => l !== undefined)).toBe(true);
    for (const l of lines) {
      expect(widthOf(l)).toBeLessThanOrEqual(80);
      // truncate() marks a cut with …; wrapped help has none
      expect(l).not.toContain('…');
    }
    // every description is there whole, however its lines were broken
    const text = squeezed(lines.join(' '));
    const screen = d.deps.screens.find((s) => s.name === 'keys')!;
    const expected = [
      ...shellHelp(keymapOf(screen), offersOf(screen), sortNote(screen)).map(([, t]) => t),
      ...commandHelp().map(([, t]) => t),
      'revoke (changes the appliance) — ✕ role auditor is read-only',
    ];
    for (const t of expected) expect(text).toContain(squeezed(t));
    // a long description continues under its own text, not under the keys
    const esc = lines.findIndex((l) => /^ {2}Esc +back \(/.test(l));
    expect(esc).toBeGreaterThanOrEqual(0);
    expect(lines[esc + 1]).toMatch(/^ {18}\S/);
    // k scrolls back up a line, as ↑ does
    await d.press('k');
    await d.waitForText(/… 1 more below \(↓ PgDn\), \d+ above/);
  });

  it('fits on one page at 120x40, wrapped the same way where a line is still too long', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await d.waitForText('row 1 of');
    await d.press('?');
    const f = plain(await d.waitForText('Keys everywhere'));
    expect(f).not.toContain('more below');
    const help = f.slice(f.indexOf('Help · Esc')).split('\n').slice(0, -3).join('\n');
    expect(help).toContain('Commands after :');
    expect(help).not.toContain('…');
    expect(f).toMatch(/^ {2}:quit +quit \(also :q\)$/m);
  });
});
