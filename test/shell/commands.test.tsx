import { afterEach, describe, expect, it } from 'vitest';
import chalk from 'chalk';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { dashboardClockPassed } from '../helpers/dashboard.js';
import { themeStore } from '../../src/dashboard/kit/theme.js';

const KEYS = ['k-alpha', 'k-bravo', 'k-charlie'];

const suite = setupScreenSuite({
  setup: async (s) => {
    for (const name of KEYS) expect((await s.call('POST', '/gateway/keys', { body: { name } })).status).toBe(201);
  },
});

// the theme is one per process, as it is in the CLI
const testLevel = chalk.level;
afterEach(() => {
  themeStore.setState({ name: 'dark' });
  chalk.level = testLevel;
});

const plain = (f: string) => f.replace(/\x1b\[[0-9;]*m/g, '');
const headerLines = (f: string) => plain(f).split('\n').slice(0, 2).join('\n');
const tableHeader = (f: string) =>
  plain(f)
    .split('\n')
    .find((l) => /^\s+(Name|Status)\s/.test(l)) ?? '';
const order = (f: string) =>
  plain(f)
    .split('\n')
    .map((l) => /^[› ] (k-[a-z]+)\s/.exec(l)?.[1])
    .filter((n): n is string => !!n);
const statusLine = (f: string) => plain(f).split('\n').at(-1) ?? '';

async function command(d: ReturnType<typeof suite.render>, text: string) {
  await d.press(':');
  await d.type(text);
  await d.press('enter');
}

describe('the : commands', () => {
  it(':sort COLUMN [asc|desc] sorts by a header in any case, with the state s and S use; a wrong column is named', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('k-charlie');
    await command(d, 'sort name desc');
    const desc = await d.waitFor((f) => tableHeader(f).includes('Name ▼'), 'sorted by Name, descending');
    expect(order(desc)).toEqual(['k-charlie', 'k-bravo', 'k-alpha']);
    expect(statusLine(desc)).toContain('sorted by Name ▼ (descending)');
    await d.press('S'); // the same sort state: S flips it
    const asc = await d.waitFor((f) => tableHeader(f).includes('Name ▲'), 'flipped by S');
    expect(order(asc)).toEqual(KEYS);

    await command(d, 'sort lastused');
    await d.waitForText('no column "lastused" here; the columns: Name, Status, Prefix');
    await command(d, 'sort Last used desc');
    await d.waitFor((f) => tableHeader(f).includes('Last used ▼'), 'a header with a space');
  });

  it(':sort save keeps the current order in the config, and says so when there is none to keep', async () => {
    const saved: [string, string][] = [];
    const d = suite.render({
      screen: 'keys',
      settings: { saveSort: (screen, sort) => void saved.push([screen, sort]) },
    });
    await d.waitForText('k-charlie');
    await command(d, 'sort save');
    await d.waitForText('the list is in the appliance order: :sort COLUMN first, then :sort save');
    await command(d, 'sort Last used desc');
    await d.waitFor((f) => tableHeader(f).includes('Last used ▼'), 'sorted');
    await command(d, 'sort save');
    await d.waitForText('the order of keys (Last used desc) saved to the config');
    expect(saved).toEqual([['keys', 'Last used desc']]);
  });

  it('completes commands and their arguments with Tab', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('k-charlie');
    await d.press(':');
    await d.type('so');
    await d.press('tab');
    await d.waitFor((f) => statusLine(f).trimEnd() === ':sort', 'the command (with its space: Ink trims it)');
    await d.type('st');
    await d.press('tab');
    const offered = await d.waitFor((f) => statusLine(f).startsWith(':sort Status'), 'the column in its own case');
    expect(statusLine(offered)).toContain('(Status  Status asc  Status desc)');
    await d.press('tab', 'tab', 'tab'); // cycles: Status, Status asc, Status desc
    await d.waitFor((f) => statusLine(f).startsWith(':sort Status desc'), 'cycled to desc');
    await d.press('esc');
    await d.press(':');
    await d.type('theme l');
    await d.press('tab');
    await d.waitFor((f) => statusLine(f).startsWith(':theme light'), 'a theme name');
  });

  it(':refresh 5s changes the polling and the header says so; a wrong interval is refused', async () => {
    const d = suite.render({ screen: 'keys', refreshMs: 2000 });
    await d.waitFor((f) => headerLines(f).includes('every 2 s'), 'the interval at start');
    await command(d, 'refresh 5s');
    await d.waitFor((f) => headerLines(f).includes('every 5 s'), 'the new interval');
    expect(d.deps.poller.refreshMs).toBe(5000);
    await command(d, 'refresh soon');
    const refused = await d.waitForText('the interval must look like 2s, 500ms or 1m');
    expect(headerLines(refused)).toContain('every 5 s');
  });

  it('the pause key stops polling and says PAUSED in the header; the same key resumes', async () => {
    const d = suite.render({ screen: 'keys', refreshMs: 200 });
    await d.waitForText('k-charlie');
    await d.waitFor((f) => headerLines(f).includes('every 200 ms'), 'polling');
    const keysEntry = () => Object.values(d.deps.resources.getState().entries).find((e) => e.fetchedAt !== null);
    await d.press('P');
    const paused = await d.waitFor((f) => headerLines(f).includes('PAUSED'), 'PAUSED in the header');
    expect(headerLines(paused)).not.toContain('every 200 ms');
    const held = keysEntry()?.fetchedAt;
    await dashboardClockPassed(d); // over a second: five intervals
    expect(keysEntry()?.fetchedAt).toBe(held);
    await d.press('r'); // one refresh, asked for; still paused after it
    await d.waitFor(() => (keysEntry()?.fetchedAt ?? 0) > (held ?? 0), 'refreshed once');
    const once = keysEntry()?.fetchedAt;
    await dashboardClockPassed(d);
    expect(keysEntry()?.fetchedAt).toBe(once);
    expect(headerLines(d.frame())).toContain('PAUSED');
    await d.press('P');
    await d.waitFor((f) => headerLines(f).includes('every 200 ms') && !headerLines(f).includes('PAUSED'), 'resumed');
    await d.waitFor(() => (keysEntry()?.fetchedAt ?? 0) > (once ?? 0), 'polled again');
  });

  it(':columns lists, hides, shows, orders, resets and saves the columns', async () => {
    const saved: [string, string[]][] = [];
    const d = suite.render({
      screen: 'keys',
      settings: { saveColumns: (screen, cols) => void saved.push([screen, cols]) },
    });
    await d.waitForText('k-charlie');
    await command(d, 'columns hide prefix');
    const hidden = await d.waitForText('Prefix hidden');
    expect(tableHeader(hidden)).not.toContain('Prefix');
    await command(d, 'columns');
    await d.waitForText(/columns of keys: shown Name, Status, Quota[^;]*; hidden Prefix/);
    await command(d, 'columns order Status,name');
    const ordered = await d.waitFor((f) => /^\s+Status\s+Name\s+Quota/.test(tableHeader(f)), 'Status first');
    expect(tableHeader(ordered)).not.toContain('Prefix');
    await command(d, 'columns save');
    await d.waitForText('columns of keys saved to the config');
    expect(saved).toEqual([
      ['keys', ['Status', 'Name', 'Quota rpm/tpm/tpd', 'Spend', 'Last used', 'Expires', 'Created', 'Rej 1h']],
    ]);
    await command(d, 'columns show Prefix');
    await d.waitFor((f) => /^\s+Status\s+Name\s+Prefix\s+Quota/.test(tableHeader(f)), 'Prefix back in its place');
    await command(d, 'columns order Nope');
    await d.waitForText('no column "Nope" here');
    await command(d, 'columns reset');
    await d.waitFor((f) => /^\s+Name\s+Status\s+Prefix/.test(tableHeader(f)), "the screen's own columns");
  });

  it(':columns save without a config file says so', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('k-charlie');
    await command(d, 'columns save');
    await d.waitForText('no config file to save to');
  });

  it(':theme light draws dark tones for a white background, and :theme with a wrong name lists the themes', async () => {
    chalk.level = 1; // colour as a terminal has it (the test runner's output is not one)
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('k-charlie');
    await command(d, 'sort nope'); // a warning: yellow on a dark terminal
    const dark = await d.waitForText('no column "nope"');
    expect(dark).toContain('\x1b[33m');
    await command(d, 'theme light');
    await d.waitFor((f) => statusLine(f).includes('theme light'), 'the light theme');
    expect(themeStore.getState().name).toBe('light');
    d.forgetFrames();
    await command(d, 'sort nope');
    await d.waitForText('no column "nope"');
    await d.press('P'); // PAUSED is a warning too
    const light = await d.waitFor((f) => headerLines(f).includes('PAUSED'), 'PAUSED');
    expect(light).toContain('\x1b[35m'); // warnings magenta
    expect(light).toContain('\x1b[32m'); // "connected" and active keys green
    // no yellow, cyan or white text, plain or bright
    for (const code of ['33', '93', '36', '96', '37', '97']) expect(d.allFrames()).not.toContain(`\x1b[${code}m`);
    await command(d, 'theme sepia');
    await d.waitForText('no theme "sepia"; the themes: dark, light, high-contrast');
  });

  it(':appliance needs configured appliances, completes and switches among them', async () => {
    const none = suite.render({ screen: 'keys' });
    await none.waitForText('k-charlie');
    await command(none, 'appliance lab');
    await none.waitForText('no appliances are configured');
    await suite.unmount();

    const switched: string[] = [];
    const d = suite.render({
      screen: 'keys',
      settings: { appliances: ['lab', 'prod'], switchAppliance: (n) => void switched.push(n) },
    });
    await d.waitForText('k-charlie');
    await command(d, 'appliance staging');
    await d.waitForText('no appliance "staging"; the appliances: lab, prod');
    await d.press(':');
    await d.type('appliance p');
    await d.press('tab');
    await d.waitFor((f) => statusLine(f).startsWith(':appliance prod'), 'completed');
    await d.press('enter');
    await d.waitFor(() => switched.length === 1, 'switched');
    expect(switched).toEqual(['prod']);
    // the dashboard ends, to start again on that appliance (src/cli/dashboard.ts)
    await d.waitFor(() => d.exited(), 'the dashboard to end for the switch');
  });

  it(':log opens the action log; ? lists the commands', async () => {
    // tall enough for the keys screen's help to end with its commands
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await d.waitForText('k-charlie');
    await command(d, 'log');
    await d.waitForText('[log]');
    await command(d, 'keys');
    await d.waitForText('k-charlie');
    await command(d, 'frobnicate');
    await d.waitForText('no command or screen "frobnicate"; commands: refresh sort columns theme appliance log');
    await d.press('?');
    const help = await d.waitForText('Commands after :');
    expect(plain(help)).toMatch(/:refresh\s+INTERVAL: poll every INTERVAL/);
    expect(plain(help)).toMatch(/P\s+pause polling/);
  });
});
