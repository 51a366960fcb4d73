import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { startTestServer } from '../helpers/server.js';
import { screens } from '../../screens/index.js';
import type { DashboardHarness } from '../helpers/dashboard.js';

const QUOTA = { requests_per_minute: 60, tokens_per_minute: 40_000, tokens_per_day: 800_000 };

const suite = setupScreenSuite({
  setup: async (s) => {
    for (const name of ['alpha-sandbox', 'beta-reporting', 'gamma-batch']) {
      expect((await s.call('POST', '/gateway/keys', { body: { name, quota: QUOTA } })).status).toBe(201);
    }
  },
});

/** Waits for the lines said to reach `count`, and returns the new ones. */
async function spokenAfter(d: DashboardHarness, from: number, count = 1): Promise<string[]> {
  await d.waitFor(() => d.spoken.length >= from + count, `${count} new spoken line(s) after ${d.spoken.join('\n')}`);
  return d.spoken.slice(from);
}

/** The refreshes that went out: `since` polls later, whatever their answers. */
async function polls(d: DashboardHarness, since: number) {
  const at = (e: { fetchedAt?: number | null }) => e.fetchedAt ?? 0;
  const key = Object.keys(d.deps.resources.getState().entries).find((k) => k.startsWith('listKeys'))!;
  const first = at(d.deps.resources.getState().entries[key]);
  let seen = 0;
  let last = first;
  await d.waitFor(() => {
    const now = at(d.deps.resources.getState().entries[key]);
    if (now !== last) [seen, last] = [seen + 1, now];
    return seen >= since;
  }, `${since} refreshes of the keys`);
}

const BOX_DRAWING = /[\u2500-\u257f]/;
const SPARKLINE = /[\u2581-\u2588]/;

describe('screen-reader mode', () => {
  it('reads the screen once, then one line per cursor move naming the key, its status and its quota', async () => {
    const d = suite.render({ screen: 'keys', screenReader: true });
    const [intro] = await spokenAfter(d, 0);
    await d.waitFor(() => d.spoken.some((l) => l.includes('list of 3 rows')), 'the keys listed');
    expect(d.spoken.join('\n')).toMatch(
      /Gateway keys screen, list of 3 rows, cursor on row 1: Name \S+, Status active/,
    );
    expect(intro).toContain('Gateway keys screen');

    const before = d.spoken.length;
    await d.press('down');
    const moved = await spokenAfter(d, before);
    // back up: its line comes right after the first, nothing said in between
    await d.press('up');
    await d.waitFor(() => d.spoken.slice(before).some((l) => l.startsWith('row 1 of 3: ')), 'the move back said');
    expect(d.spoken.slice(before)).toEqual([moved[0], expect.stringMatching(/^row 1 of 3: /)]);
    expect(moved[0]).toMatch(/^row 2 of 3: Name (alpha-sandbox|beta-reporting|gamma-batch), Status active, /);
    expect(moved[0]).toContain('Quota rpm/tpm/tpd 60 / 40k / 800k');
  });

  it('says the filter prompt, then how many rows match as the filter is typed', async () => {
    const d = suite.render({ screen: 'keys', screenReader: true });
    await d.waitFor(() => d.spoken.some((l) => l.includes('list of')), 'the keys listed');
    const before = d.spoken.length;
    await d.press('/');
    await d.waitFor(() => d.spoken.slice(before).some((l) => l.startsWith('filter: type')), 'the prompt said');
    await d.type('gamma');
    await d.waitFor(
      () => d.spoken.at(-1)?.startsWith('list of 1 row matching "gamma", cursor on row 1: Name gamma-batch') === true,
      'the match said',
    );
    await d.press('esc');
    await d.waitFor(
      () => d.spoken.at(-1)?.startsWith('list of 3 rows, cursor on row 1') === true,
      'the filter cleared',
    );
  });

  it('says nothing for an unchanged refresh, and once what a changed one changed', async () => {
    const d = suite.render({ screen: 'keys', screenReader: true, refreshMs: 200 });
    await d.waitFor(() => d.spoken.some((l) => l.includes('list of')), 'the keys listed');
    const before = d.spoken.length;
    await polls(d, 3);
    expect(d.spoken.slice(before)).toEqual([]);

    expect((await suite.server.call('POST', '/gateway/keys', { body: { name: 'delta-new' } })).status).toBe(201);
    const [changed] = await spokenAfter(d, before);
    expect(changed).toBe('1 new row');
    await polls(d, 3);
    expect(d.spoken.slice(before)).toEqual(['1 new row']);
  });

  it('reads a dialog with its title, fields and buttons, and a finished action once', async () => {
    const d = suite.render({ screen: 'keys', screenReader: true });
    await d.waitFor(() => d.spoken.some((l) => l.includes('list of')), 'the keys listed');
    let before = d.spoken.length;
    await d.press('n');
    const dialog = await spokenAfter(d, before, 3);
    expect(dialog[0]).toBe('dialog: Create a gateway key');
    expect(dialog.join('\n')).toMatch(/field 1 of \d+: Name, text/);
    await d.waitFor(() => d.spoken.some((l) => /Esc cancels$/.test(l)), 'the buttons read');

    before = d.spoken.length;
    await d.type('epsilon-sr');
    await d.press('enter');
    await d.waitFor(() => d.spoken.slice(before).includes('dialog: Secret for epsilon-sr'), 'the secret dialog said');
    const shown = d.deps.dialogs.getState().stack.at(-1)?.spec;
    expect(shown?.kind === 'secret' && shown.secret.length > 10).toBe(true);
    expect(d.spoken.join('\n')).not.toContain((shown as { secret: string }).secret);

    await d.press('enter');
    await d.waitFor(() => d.spoken.includes('dialog: Key created'), 'the result said');
    // closed: the list is read again, and the result was said once all along
    before = d.spoken.length;
    await d.press('enter');
    await d.waitFor(() => d.spoken.slice(before).some((l) => l.startsWith('Gateway keys screen, list of')), 'the list');
    expect(d.spoken.filter((l) => l === 'dialog: Key created')).toHaveLength(1);
  });

  it('says each field of a form as the focus moves to it, and what a refused submit found wrong', async () => {
    const d = suite.render({ screen: 'keys', screenReader: true });
    await d.waitFor(() => d.spoken.some((l) => l.includes('list of')), 'the keys listed');
    await d.press('n');
    await d.waitFor(() => d.spoken.some((l) => /Esc cancels$/.test(l)), 'the form read');

    // Enter with the required name empty: what is wrong, then the field the focus went to
    let before = d.spoken.length;
    await d.press('enter');
    const refused = await spokenAfter(d, before, 2);
    expect(refused[0]).toBe('not sent: 1 field to correct: Name: required');
    expect(refused[1]).toBe('field 1 of 5: Name, text, empty, required; error: required; who or what will use the key');

    await d.type('zeta-sr');
    before = d.spoken.length;
    await d.press('tab');
    const [moved] = await spokenAfter(d, before);
    expect(moved).toBe(
      'field 2 of 5: Requests / minute, number, empty, unlimited; whole number, or empty for unlimited',
    );
    await d.type('60');
    before = d.spoken.length;
    await d.press('shift-tab');
    const [back] = await spokenAfter(d, before);
    // typing cleared its error; the typed characters themselves were not said again
    expect(back).toBe('field 1 of 5: Name, text, value zeta-sr, required; who or what will use the key');
    // on to the next field: its line follows, nothing said in between
    await d.press('tab');
    await d.waitFor(() => d.spoken.length >= before + 2, 'the next field said');
    expect(d.spoken.slice(before)).toEqual([
      back,
      expect.stringMatching(/^field 2 of 5: Requests \/ minute, number, value 60/),
    ]);
    await d.press('esc');
  });

  it("says a choice field's new value as it changes", async () => {
    const d = suite.render({ screen: 'audit', screenReader: true });
    await d.waitFor(() => d.spoken.some((l) => l.startsWith('Audit trail screen, list')), 'the audit listed');
    await d.press('f');
    await d.waitFor(() => d.spoken.some((l) => /Esc cancels$/.test(l)), 'the form read');
    const before = d.spoken.length;
    await d.press('right');
    const [chosen] = await spokenAfter(d, before);
    expect(chosen).toBe('Time range: value last hour');
  });

  it('says a lost connection once, however many polls fail after it', async () => {
    const other = await startTestServer();
    const d = suite.render({ server: other, screen: 'keys', screenReader: true, refreshMs: 200 });
    await d.waitFor(() => d.spoken.some((l) => l.startsWith('Gateway keys screen, no rows')), 'the empty list said');
    await other.close();
    await d.waitFor(() => d.spoken.some((l) => l.startsWith('connection lost: ')), 'the loss said');
    const failures = d.deps.resources.getState().connection.failures;
    await d.waitFor(() => d.deps.resources.getState().connection.failures >= failures + 2, 'two more failed polls');
    expect(d.spoken.filter((l) => l.startsWith('connection lost: '))).toHaveLength(1);
  });

  it('says a screen whose answer failed has no data, not that its list is empty', async () => {
    const gone = await startTestServer();
    await gone.close();
    const d = suite.render({ url: gone.url, token: gone.tokens.it_admin, screen: 'keys', screenReader: true });
    await d.waitFor(() => d.spoken.includes('Gateway keys screen, no data: the request failed; r retries'), 'failed');
    expect(d.spoken.join('\n')).not.toContain('no rows');
  });

  it.each(screens.map((x) => [x.name, x.title]))(
    'reads the %s screen by name once its answers are in',
    async (name, title) => {
      const d = suite.render({ screen: name, screenReader: true });
      await d.waitFor(
        () => d.spoken.some((l) => l.startsWith(`${title} screen`) && !l.endsWith(', loading')),
        'the screen read',
      );
    },
  );

  it('sends no box drawing, sparkline or escape sequence', async () => {
    const d = suite.render({ screen: 'overview', screenReader: true });
    await d.waitFor(() => d.spoken.length > 0, 'the overview said');
    for (const key of ['tab', 'tab', 'down', 'enter', 'esc', '?', 'esc', 'tab', 'tab', 'tab', 'down'])
      await d.press(key);
    // help, pressed last, is read after all that the keys before it made said
    const before = d.spoken.length;
    await d.press('?');
    await d.waitFor(() => d.spoken.slice(before).some((l) => l.startsWith('help for the ')), 'the help read');
    const all = d.spoken.join('\n');
    expect(all).not.toMatch(BOX_DRAWING);
    expect(all).not.toMatch(SPARKLINE);
    expect(all).not.toContain('\x1b');
    expect(d.spoken.filter((l) => l !== l.trim() || / {2}/.test(l))).toEqual([]);
  });
});
