import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { startVariant } from '../helpers/appliance-variant.js';
import { screens } from '../../screens/index.js';
import { validateScreens } from '../../src/dashboard/shell/registry.js';

const suite = setupScreenSuite();

const header = (f: string) => f.split('\n').slice(0, 2).join('\n');

describe('the shell', () => {
  it('registers valid screens (names, keys not reserved, known capabilities)', () => {
    expect(() => validateScreens(screens)).not.toThrow();
    expect(() =>
      validateScreens([{ ...screens[0], actions: [{ key: 'q', label: 'x', mutates: false, run: async () => {} }] }]),
    ).toThrow(/reserved/);
  });

  it('starts on the overview, and moves between screens with Tab, Shift-Tab and the : command line with completion', async () => {
    const d = suite.render();
    await d.waitFor((f) => header(f).includes('[overview]') && f.includes('Deployment healthy'), 'the overview, first');
    await d.press('tab');
    await d.waitForText('Team share');
    expect(header(d.frame())).toContain('[connectors]');
    await d.press('tab');
    await d.waitForText('Web chat');
    expect(header(d.frame())).toContain('[channels]');
    await d.press('shift-tab');
    await d.waitFor((f) => header(f).includes('[connectors]'), 'back on connectors');
    await d.press(':');
    await d.type('ke');
    await d.press('tab');
    await d.waitForText(':keys');
    await d.press('enter');
    await d.waitFor((f) => header(f).includes('[keys]'), 'on keys');
    await d.press(':');
    await d.type('nope');
    await d.press('enter');
    await d.waitForText('no command or screen "nope"; commands: refresh sort');
  });

  it("keeps each screen's cursor and filter when switching away and back", async () => {
    const d = suite.render({ screen: 'connectors' });
    await d.waitForText('Team share');
    await d.press('down', 'down');
    await d.waitFor(
      (f) => f.split('\n').some((l) => l.startsWith('›') && l.includes('Cloud CRM')),
      'third row selected',
    );
    await d.press('tab');
    await d.waitForText('Web chat');
    await d.press('/');
    await d.type('mail');
    await d.press('enter');
    await d.waitFor((f) => !f.includes('Web chat'), 'filter applied');
    await d.press('shift-tab');
    await d.waitFor((f) => f.split('\n').some((l) => l.startsWith('›') && l.includes('Cloud CRM')), 'cursor kept');
    await d.press('tab');
    await d.waitForText('filter: mail');
    expect(d.frame()).not.toContain('Web chat');
    await d.press('esc');
    await d.waitForText('Web chat');
  });

  it('shows help with every binding and a detail view of every field', async () => {
    const d = suite.render({ screen: 'channels' });
    await d.waitForText('Web chat');
    await d.press('?');
    const help = await d.waitForText('Keys everywhere');
    for (const k of ['Tab  Shift-Tab', 'PgUp  PgDn', 'Home End', 'refresh now', 'quit', 'toggle'])
      expect(help).toContain(k);
    await d.press('esc');
    await d.press('enter');
    const detail = await d.waitForText('Detail: chan_');
    expect(detail).toMatch(/updated_at\s+\d{4}-/);
    await d.press('esc');
    await d.waitFor((f) => !f.includes('Detail:'), 'back to the list');
  });

  it('the detail view shows fields the contract does not know', async () => {
    const v = await startVariant({
      target: suite.server.url,
      camelCase: true,
      extraFields: { vendor_region: 'eu-west', vendor_meta: { tier: 'gold' } },
    });
    const d = suite.render({ url: v.url, screen: 'channels' });
    await d.waitForText('Web chat');
    await d.press('enter');
    const f = await d.waitForText('vendorRegion');
    expect(f).toMatch(/vendorRegion\s+eu-west/);
    expect(f).toMatch(/vendorMeta\.tier\s+gold/);
    await suite.unmount();
    await v.close();
  });

  it('says so below 60x20, draws the compact layout from there, and follows the resize back', async () => {
    const d = suite.render({ screen: 'channels', columns: 100, rows: 30 });
    await d.waitForText('Web chat');
    await d.resize(59, 20);
    await d.waitForText('needs at least 60x20');
    expect(d.frame()).toContain('59x20');
    await d.resize(60, 20);
    await d.waitForText('Web chat');
    expect(d.frame().split('\n').length).toBeLessThanOrEqual(19);
    await d.resize(90, 26);
    await d.waitForText('Web chat');
    expect(d.frame().split('\n').length).toBeLessThanOrEqual(25);
  });

  it('never draws a frame taller than the terminal', async () => {
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    await d.waitForText('keys');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    expect(d.frame().split('\n').length).toBeLessThan(24);
    await d.press('esc');
    await d.press('?');
    await d.waitForText('Keys everywhere');
    expect(d.frame().split('\n').length).toBeLessThan(24);
  });

  it('keeps the last data when the connection drops, marks it STALE and counts down to a retry', async () => {
    const own = await startTestServer();
    const d = suite.render({ server: own, screen: 'channels', refreshMs: 200 });
    await d.waitForText('Web chat');
    await d.waitForText('● connected');
    await own.close();
    const f = await d.waitForText('DISCONNECTED');
    expect(f).toMatch(/retry in \d+ s/);
    expect(f).toContain('Web chat'); // last data kept
    await d.waitForText('✕ STALE');
    await d.waitFor((x) => /retry in [1-9]\d* s/.test(x), 'a backoff countdown');
  });

  it("the header keeps counting the data's age while keys move the cursor", async () => {
    const d = suite.render({ screen: 'channels', refreshMs: 60_000 });
    await d.waitForText('Web chat');
    await d.waitFor((f) => /updated 0 s ago/.test(header(f)), 'fresh data');
    const ages = new Set<string>();
    const end = Date.now() + 2600;
    for (let i = 0; Date.now() < end; i++) {
      await d.press(i % 2 ? 'k' : 'j');
      await new Promise((r) => setTimeout(r, 80));
      ages.add(/updated (\d+) s ago/.exec(header(d.frame()))?.[1] ?? '?');
    }
    // a key every 80 ms leaves the clock no quiet second of its own: the key's frame must show it
    expect(ages).toContain('1');
    expect(ages).toContain('2');
  });

  it('marks data that has not been refreshed for two intervals', async () => {
    const d = suite.render({ screen: 'channels', refreshMs: 60_000 });
    await d.waitForText('Web chat');
    expect(d.frame()).not.toContain('(late)');
    d.deps.resources.setState((st) => ({
      entries: Object.fromEntries(
        Object.entries(st.entries).map(([k, e]) => [k, { ...e, fetchedAt: Date.now() - 130_000 }]),
      ),
    }));
    await d.waitForText(/▲ updated 13\d s ago \(late\)/);
  });
});

describe('role learned from the first 403', () => {
  it('an appliance without GET /session: the first refused change turns the session read-only', async () => {
    const v = await startVariant({ target: suite.server.url, noSession: true });
    const d = suite.render({ url: v.url, role: 'auditor', screen: 'channels' });
    await d.waitForText('Web chat');
    await d.waitForText('identity unknown');
    expect(d.frame()).not.toContain('READ-ONLY');
    await d.press(' ');
    await d.waitForText('Disable channel Web chat?');
    await d.press('right', 'enter');
    const f = await d.waitForText('toggle failed');
    expect(f).toContain('Not allowed: your role may not do this');
    expect(f).toContain('code SVC-ADMIN-403');
    expect(f).toMatch(/request req_\w+/);
    await d.press('enter');
    await d.waitForText('READ-ONLY');
    expect(d.frame()).toMatch(/Space toggle ✕.*refused a change \(403 SVC-ADMIN-403\)/);
    const denied = () =>
      (suite.db.prepare("SELECT COUNT(*) AS n FROM audit WHERE outcome = 'denied'").get() as { n: number }).n;
    const before = denied();
    await d.press(' ');
    await d.waitForText('Nothing was sent.');
    expect(denied()).toBe(before);
    await suite.unmount();
    await v.close();
  });
});

describe('a screen that fails to draw', () => {
  it('shows the failure in place and the shell keeps working', async () => {
    const broken = {
      name: 'broken',
      title: 'Broken',
      resources: () => [{ id: 'session', route: 'session' as const }],
      render: (): never => {
        throw new Error('kaboom');
      },
    };
    const d = suite.render({ screens: [...screens, broken], screen: 'broken' });
    await d.waitForText('the broken screen failed to draw: kaboom');
    await d.press('shift-tab');
    await d.waitForText(`[${screens.at(-1)!.name}]`);
  });
});
