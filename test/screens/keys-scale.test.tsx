import { describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { insertGatewayKeys, numberedKeys } from '../helpers/seed-gateway-keys.js';

/**
 * The keys screen on an appliance with more keys than a page (issue 41 §6): it says it shows the
 * newest of more, and `f` has the appliance find keys by the beginning of their name, among all of
 * them. 1,200 keys here; test/bench/server-gateway-scale measures a million.
 */
const suite = setupScreenSuite({
  setup: (s) => {
    const db = s.server.db;
    const t0 = Date.UTC(2025, 0, 1);
    // the oldest key, far below the newest page
    const first = new Date(t0 - 86_400_000).toISOString();
    insertGatewayKeys(db, [
      {
        id: 'key_archive',
        name: 'Archive-Reader',
        prefix: 'agk_archive',
        secret_hash: 'hash-archive',
        created_at: first,
        requests_per_minute: 7,
        quota_changed_at: first,
      },
      ...numberedKeys('bulk', 1200, (i) => ({
        name: `tenant-${String(i).padStart(4, '0')}`,
        created_at: new Date(t0 + i * 60_000).toISOString(),
        secret_hash: `hash-${i}`,
        requests_per_minute: null,
      })),
    ]);
  },
});

const rowOf = (f: string, name: string) => f.split('\n').find((l) => l.slice(2).startsWith(name)) ?? '';

/** Opens `f`, replaces the name searched with `text`, and finds. */
async function find(d: ReturnType<typeof suite.render>, text: string) {
  await d.press('f');
  await d.waitForText('Find keys by name');
  for (let i = 0; i < 20; i++) await d.press('backspace');
  if (text) await d.type(text);
  await d.press('enter');
}

describe('keys screen with more keys than a page', () => {
  it('says it shows the newest 500 of more, and f finds a key among all of them by its name', async () => {
    const d = suite.render({ role: 'it_admin', screen: 'keys', columns: 120, rows: 40 });
    const newest = await d.waitForText('the newest 500 keys of more (f finds one by its name)');
    expect(rowOf(newest, 'tenant-1199')).not.toBe('');
    expect(newest).not.toContain('Archive-Reader');

    await find(d, 'archive');
    const found = await d.waitForText('1 key whose name begins "archive" (f: another, empty for all)');
    expect(rowOf(found, 'Archive-Reader')).toMatch(/Archive-Reader\s+active/);
    // the key found is one to act on: the quota form reads it anew from the appliance, by its id
    await selectRow(d, 'Archive-Reader');
    await d.press('u');
    await d.waitForText('Quota for Archive-Reader');
    expect(d.frame()).toContain('Now: 7 requests/min');
    await d.press('esc');
    await d.waitFor((f) => !f.includes('Quota for'), 'the form closed');
    await d.press('esc'); // the row filter selectRow typed
    await d.waitFor((f) => !f.includes('filter: Archive'), 'the row filter cleared');

    await find(d, 'tenant-0');
    const many = await d.waitForText('the first 500 keys by name of those beginning "tenant-0" (type more of it: f)');
    expect(rowOf(many, 'tenant-0000')).not.toBe('');
    expect(rowOf(many, 'tenant-0999')).toBe('');

    await find(d, 'nobody');
    await d.waitForText(`No key's name begins "nobody". f searches another name; empty lists every key.`);

    await find(d, '');
    await d.waitForText('the newest 500 keys of more');
    expect(rowOf(d.frame(), 'tenant-1199')).not.toBe('');
  });

  it('an auditor may search too: f changes nothing on the appliance', async () => {
    const d = suite.render({ role: 'auditor', screen: 'keys', columns: 80, rows: 24 });
    await d.waitForText('the newest 500 keys of more');
    await find(d, 'Tenant-11');
    await d.waitForText('keys whose name begins "Tenant-11"');
    expect(rowOf(d.frame(), 'tenant-1100')).not.toBe('');
  });
});
