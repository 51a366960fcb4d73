import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const NOW = Date.now();
const MIN = 60_000;
/**
 * Created in this order (the appliance lists the newest created first), last used so that the
 * cells' text ("1 h", "2 min", "3 d", "45 s") sorts differently from the times they stand for.
 */
const KEYS: [name: string, lastUsedMsAgo: number | null][] = [
  ['k-hour', 60 * MIN],
  ['k-never', null],
  ['k-seconds', 45_000],
  ['k-days', 3 * 24 * 60 * MIN],
  ['k-minutes', 2 * MIN],
];
const OLDEST_FIRST = ['k-days', 'k-hour', 'k-minutes', 'k-seconds', 'k-never'];
const NEWEST_FIRST = ['k-seconds', 'k-minutes', 'k-hour', 'k-days', 'k-never'];

const suite = setupScreenSuite({
  setup: async (s) => {
    for (const [name] of KEYS) expect((await s.call('POST', '/gateway/keys', { body: { name } })).status).toBe(201);
    for (const [name, ago] of KEYS) setLastUsed(s.server.db, name, ago);
  },
});

function setLastUsed(db: typeof suite.db, name: string, msAgo: number | null) {
  db.prepare('UPDATE gateway_keys SET last_used_at = ? WHERE name = ?').run(
    msAgo === null ? null : new Date(NOW - msAgo).toISOString(),
    name,
  );
}

/** Key names in the order the table shows them. */
const order = (f: string) =>
  f
    .split('\n')
    .map((l) => /^[› ] (k-[a-z]+)\s/.exec(l)?.[1])
    .filter((n): n is string => !!n);
const selected = (f: string) => /^› (k-[a-z]+)\s/m.exec(f)?.[1];
const header = (f: string) => f.split('\n').find((l) => /^\s+Name\s+Status/.test(l)) ?? '';
const hints = (f: string) => f.split('\n').at(-2) ?? '';

describe('sorting a list', () => {
  it('sorts keys by Last used by time, not by its text, blanks last both ways; the cursor keeps its row', async () => {
    const d = suite.render({ screen: 'keys' });
    const first = await d.waitForText('k-minutes');
    expect(order(first)).toEqual([...KEYS.map(([n]) => n)].reverse()); // the appliance's order
    expect(hints(first)).toContain('s sort');
    expect(header(first)).not.toMatch(/[▲▼]/);

    await d.press('j', 'j'); // k-seconds, third newest created
    await d.waitFor((f) => selected(f) === 'k-seconds', 'cursor on k-seconds');
    await d.press('s', 's', 's', 's', 's', 's'); // Name, Status, Prefix, Quota, Spend, Last used
    const asc = await d.waitFor((f) => header(f).includes('Last used ▲'), 'Last used marked ascending');
    expect(asc).toContain('sorted by Last used ▲ (ascending');
    expect(order(asc)).toEqual(OLDEST_FIRST);
    expect(selected(asc)).toBe('k-seconds');

    await d.press('S');
    const desc = await d.waitFor((f) => header(f).includes('Last used ▼'), 'Last used marked descending');
    expect(order(desc)).toEqual(NEWEST_FIRST);
    expect(selected(desc)).toBe('k-seconds');

    // a poll that reorders the rows: the sort holds, and so does the cursor's row
    setLastUsed(suite.db, 'k-days', 1000);
    await d.press('r');
    const polled = await d.waitFor((f) => order(f)[0] === 'k-days', 'k-days first after the poll');
    expect(order(polled)).toEqual(['k-days', 'k-seconds', 'k-minutes', 'k-hour', 'k-never']);
    expect(selected(polled)).toBe('k-seconds');
    setLastUsed(suite.db, 'k-days', 3 * 24 * 60 * MIN);

    // kept while another screen is shown, like the filter
    await d.press('tab');
    await d.waitFor((f) => !f.includes('k-minutes'), 'the next screen');
    await d.press('shift-tab');
    const back = await d.waitFor((f) => header(f).includes('Last used ▼'), 'the sort kept');
    expect(selected(back)).toBe('k-seconds');

    // past the last column: the appliance's order again
    await d.press('s');
    await d.waitFor((f) => header(f).includes('Expires ▲'), 'Expires');
    await d.press('s');
    await d.waitFor((f) => header(f).includes('Created ▲'), 'Created');
    await d.press('s');
    await d.waitFor((f) => /Rej.* ▲/.test(header(f)), 'Rej 1h');
    await d.press('s');
    const unsorted = await d.waitForText("in the appliance's order");
    expect(header(unsorted)).not.toMatch(/[▲▼]/);
    expect(order(unsorted)).toEqual([...KEYS.map(([n]) => n)].reverse());
  });

  it('says in ? help what s and S do: sort a list (usage is one), nothing on a document view', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('k-minutes');
    await d.press('?');
    const help = await d.waitForText('Keys everywhere');
    expect(help).toMatch(/s {2}S\s+sort by the next column \(▲▼ in its header\) \/ flip the order/);
    await d.press('esc', 'tab'); // usage: a list of keys too
    await d.waitFor((f) => !f.includes('k-minutes') && f.includes('Requests'), 'usage');
    await d.press('?');
    const usageHelp = await d.waitForText('Keys everywhere');
    expect(usageHelp).toMatch(/s {2}S\s+sort by the next column/);
    await d.press('esc');
    await d.press('s');
    await d.waitFor((f) => /Key ▲/.test(f), 'usage sorted by Key');
    // a document of sections and steps (deployment, settings, identity) has nothing to sort
    const doc = suite.render({ screen: 'deployment' });
    await doc.waitForText('Install plan');
    await doc.press('s');
    await doc.waitForText('the deployment screen is not a list: nothing to sort');
  });

  it("keeps a paged history in the server's time order and says so", async () => {
    const d = suite.render({ screen: 'audit' });
    const f = await d.waitForText('gateway.key.create');
    expect(f).toMatch(/Time \(UTC\) ▼/);
    const rows = () =>
      d
        .frame()
        .split('\n')
        .filter((l) => /^[› ] \d{4}-/.test(l));
    const before = rows();
    await d.press('s');
    await d.waitForText('sorted by time on the server, newest first');
    expect(rows()).toEqual(before);
    await d.press('?');
    expect(await d.waitForText('Keys everywhere')).toMatch(/s {2}S\s+sorted by time on the server/);
  });
});
