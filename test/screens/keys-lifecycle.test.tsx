import { describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/server.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { insertGatewayKeys, numberedKeys } from '../helpers/seed-gateway-keys.js';
import { afterARefresh } from '../helpers/dashboard.js';
import { epochMinute, recordUsage } from '../../src/server/gateway/metering.js';

/**
 * The keys screen's part of issue 41 §1–3 against the real server: the Expires column (giving way
 * on a short line, said in the cursor line), R rotate with a grace (the new secret shown once, the
 * old one's grace on the cursor line), E expiry, U unused keys; an auditor sees R and E disabled.
 */
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

const suite = setupScreenSuite({
  setup: async (s) => {
    const at = new Date(Date.now() + 3 * DAY + 3600_000).toISOString();
    for (const body of [
      { name: 'expiring-soon', expires_at: at },
      { name: 'rotate-me', quota: { requests_per_minute: 40 } },
      { name: 'idle-month' },
      { name: 'never-called' },
      { name: 'busy-key' },
      { name: 'old-clients' },
    ])
      expect((await s.call('POST', '/gateway/keys', { body })).status).toBe(201);
    // history as an appliance would have it after weeks: seeded in the database
    const set = s.server.db.prepare('UPDATE gateway_keys SET created_at = ?, last_used_at = ? WHERE name = ?');
    set.run(ago(90), ago(40), 'idle-month');
    set.run(ago(60), null, 'never-called');
    set.run(ago(90), ago(0.01), 'busy-key');
    set.run(ago(10), ago(0.01), 'expiring-soon');
    set.run(ago(10), ago(0.01), 'rotate-me');
    // clients still calling with an expired key and with a secret replaced by a rotation, ten minutes ago
    const oldClients = s.server.db
      .prepare("SELECT id FROM gateway_keys WHERE name = 'old-clients'")
      .pluck()
      .get() as string;
    recordUsage(s.server.db, oldClients, epochMinute(Date.now() - 10 * 60_000), {
      rejected_by: { expired: 2, rotated: 1 },
    });
  },
});

interface StoredKey {
  id: string;
  prefix: string;
  secret_hash: string;
  expires_at: string | null;
}
const keyNamed = (name: string) => suite.db.prepare('SELECT * FROM gateway_keys WHERE name = ?').get(name) as StoredKey;
const header = (f: string) => f.split('\n').find((l) => l.trimStart().startsWith('Name')) ?? '';
const rowOf = (f: string, name: string) => f.split('\n').find((l) => l.slice(2).startsWith(name)) ?? '';

describe('keys screen: expiry, rotation, unused keys', () => {
  it('shows Expires at 120x40 and says it in the cursor line; at 80x24 the column gives way and the cursor line still says it', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await selectRow(d, 'expiring-soon');
    const wide = await d.waitFor((f) => /expires in 3 days/.test(f), 'the expiry in the cursor line');
    expect(header(wide)).toMatch(/Last used\s+Expires\s+Created\s+Rej 1h/);
    expect(rowOf(wide, 'expiring-soon')).toMatch(/\s+in 3 d\s+/);
    expect(wide).toMatch(/expiring-soon: ∞ \/ ∞ \/ ∞ · expires in 3 days \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    await d.resize(80, 24);
    const narrow = await d.waitFor((f) => !header(f).includes('Created'), 'the 80-column layout');
    expect(header(narrow)).not.toContain('Expires');
    expect(header(narrow)).toContain('Rej 1h');
    expect(narrow).toContain('expires in 3 days');
    expect(narrow.split('\n').every((l) => l.length <= 80)).toBe(true);
  });

  it('R rotates with the grace chosen: the new secret shown once, the old prefix in grace on the cursor line, audited with both prefixes', async () => {
    const before = keyNamed('rotate-me');
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await selectRow(d, 'rotate-me');
    await d.press('R');
    await d.waitForText('Rotate rotate-me?');
    expect(d.frame()).toMatch(/Old secret works ‹ for 24 hours ›/);
    await d.press('left'); // 24 hours → 1 hour
    await d.waitFor((f) => /Old secret works ‹ for 1 hour ›/.test(f), 'the grace of an hour');
    await d.press('enter');
    const shown = await d.waitForText('will not be shown again');
    const secret = /\b(agk_[A-Za-z0-9_-]{43})\b/.exec(shown)?.[1];
    expect(secret).toBeDefined();
    const after = keyNamed('rotate-me');
    expect(after.id).toBe(before.id);
    expect(after.prefix).toBe(secret!.slice(0, 12));
    expect(after.secret_hash).not.toBe(before.secret_hash);
    const replaced = suite.db
      .prepare('SELECT prefix, valid_until_ms FROM gateway_key_replaced_secrets WHERE key_id = ?')
      .all(before.id) as { prefix: string; valid_until_ms: number }[];
    expect(replaced).toHaveLength(1);
    expect(replaced[0].prefix).toBe(before.prefix);
    expect(replaced[0].valid_until_ms - Date.now()).toBeGreaterThan(3500_000);
    expect(replaced[0].valid_until_ms - Date.now()).toBeLessThanOrEqual(3600_000);
    const framesBefore = d.allFrames().length;
    await d.press('enter');
    const result = await d.waitForText('Audit entry aud_');
    expect(result).toContain('Key rotated');
    expect(result).toMatch(new RegExp(`new prefix ${after.prefix}, old[\\s│]+${before.prefix}`));
    expect(result).toContain(`previous_prefix: ${before.prefix}`);
    expect(result).toContain(`new_prefix: ${after.prefix}`);
    await d.press('enter');
    const until = new Date(replaced[0].valid_until_ms).toISOString().slice(11, 16);
    const listed = await d.waitFor(
      (f) => f.includes(`rotated, old secret valid until ${until} UTC`),
      'the grace in the cursor line',
    );
    expect(listed).toContain('1 in a rotation grace');
    // the secret is never drawn again, kept by the dashboard, or in the audit trail
    expect(d.allFrames().slice(framesBefore)).not.toContain(secret!);
    const kept = JSON.stringify([d.deps.resources.getState(), d.deps.ui.getState(), d.deps.dialogs.getState()]);
    expect(kept).not.toContain(secret!);
    expect(JSON.stringify(suite.auditRows())).not.toContain(secret!);
  });

  it('at 80x24: R is offered and its form fits (Esc sends nothing), and U narrows the list', async () => {
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    await selectRow(d, 'idle-month');
    const hints = (f: string) => f.split('\n').find((l) => l.startsWith('n new')) ?? '';
    expect(hints(await d.waitFor((f) => hints(f) !== '', 'the hints'))).toMatch(/R rotate.*x revoke/);
    const stored = keyNamed('idle-month');
    await d.press('R');
    const form = await d.waitForText('Rotate idle-month?');
    expect(form).toMatch(/Old secret works ‹ for 24 hours ›/);
    expect(form.split('\n').every((l) => l.length <= 80)).toBe(true);
    await d.press('esc');
    await d.waitFor((f) => !f.includes('Rotate idle-month?'), 'the form to close');
    await afterARefresh(d);
    expect(keyNamed('idle-month')).toEqual(stored);
    await d.press('esc'); // the row filter
    await d.waitFor((f) => rowOf(f, 'busy-key') !== '', 'every key');
    await d.press('U');
    const idle = await d.waitFor((f) => /^2 keys: active keys unused for 30/m.test(f), 'the filtered list');
    expect(rowOf(idle, 'busy-key')).toBe('');
    expect(rowOf(idle, 'idle-month')).not.toBe('');
  });

  it('E sets an expiry typed as a time from now, and clears it when emptied; a past time is refused in the form', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await selectRow(d, 'busy-key');
    await d.press('E');
    await d.waitForText('Expiry of busy-key');
    await d.type('2001-01-01');
    await d.press('enter');
    await d.waitForText('must be in the future');
    expect(keyNamed('busy-key').expires_at).toBeNull();
    for (let i = 0; i < 10; i++) await d.press('backspace');
    await d.type('5d');
    await d.press('enter');
    await d.waitForText('Expiry set');
    const set = Date.parse(keyNamed('busy-key').expires_at!);
    expect(Math.abs(set - (Date.now() + 5 * DAY))).toBeLessThan(60_000);
    await d.press('enter');
    await d.waitFor((f) => f.includes('busy-key: ∞ / ∞ / ∞ · expires in 5 days'), 'the expiry on the cursor line');
    await d.press('E');
    await d.waitForText('Expiry of busy-key');
    await d.press('backspace'); // the prefilled time is selected: one key empties it
    await d.press('enter');
    await d.waitForText('Expiry cleared');
    expect(keyNamed('busy-key').expires_at).toBeNull();
  });

  it('U cycles: active keys unused for 30 days, then never used, then all keys again', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await d.waitForText('busy-key');
    await d.press('U');
    const idle = await d.waitForText('active keys unused for 30 days');
    const names = (f: string) =>
      ['expiring-soon', 'rotate-me', 'idle-month', 'never-called', 'busy-key'].filter((n) => rowOf(f, n));
    expect(names(idle)).toEqual(['idle-month', 'never-called']);
    expect(idle).toMatch(/2 keys: active keys unused for 30 days \(U: active keys never used\)/);
    await d.press('U');
    const never = await d.waitForText('active keys never used (U: all keys)');
    expect(names(never)).toEqual(['never-called']);
    await d.press('U');
    const all = await d.waitFor((f) => !f.includes('(U: ') && rowOf(f, 'busy-key') !== '', 'every key again');
    expect(names(all)).toHaveLength(5);
  });

  it('a name searched under U that only other keys have: the empty list says both, not that no key has the name', async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await d.waitForText('busy-key');
    await d.press('U');
    await d.waitForText('active keys unused for 30 days (U:');
    await d.press('f');
    await d.waitForText('Find keys by name');
    await d.type('busy');
    await d.press('enter');
    const f = await d.waitForText('0 keys whose name begins "busy"');
    expect(f).toContain(
      'None of the active keys unused for 30 days has a name beginning "busy". U: next filter; f: another name.',
    );
    expect(f).not.toContain(`No key's name begins`);
  });

  it('the overview lists the unused keys as one watch item that opens the keys screen filtered to them', async () => {
    const d = suite.render({ screen: 'overview', columns: 120, rows: 40 });
    const board = await d.waitForText('unused for 30 days');
    expect(board).toMatch(/WARN\s+Gateway keys\s+2 active keys unused for 30 days: (idle-month|never-called), /);
    expect(board).toMatch(/unused for 30 days: .*idle-month/);
    expect(board).toMatch(/unused for 30 days: .*never-called/);
    expect(board).toMatch(/WARN\s+Key expiring-soon\s+expires in 3 days/);
    await d.waitFor((f) => f.split('\n').some((l) => l.startsWith('›')), 'a selected line');
    for (let i = 0; i < 20 && !/^›.*Gateway keys/m.test(d.frame()); i++) await d.press('j');
    await d.press('enter');
    const keys = await d.waitForText('2 keys: active keys unused for 30 days');
    expect(keys).toContain('[keys]');
  });

  it("the overview's expiry line opens the keys screen on the keys expiring within 7 days, the key selected", async () => {
    const d = suite.render({ screen: 'overview', columns: 120, rows: 40 });
    await d.waitForText('Key expiring-soon');
    await d.waitFor((f) => f.split('\n').some((l) => l.startsWith('›')), 'a selected line');
    for (let i = 0; i < 20 && !/^›.*Key expiring-soon/m.test(d.frame()); i++) await d.press('j');
    await d.press('enter');
    const keys = await d.waitForText('1 key: active keys expiring within 7 days (U: all keys)');
    expect(rowOf(keys, 'expiring-soon')).not.toBe('');
    expect(rowOf(keys, 'busy-key')).toBe('');
    await d.waitFor((f) => /^expiring-soon: .*expires in 3 days/m.test(f), 'the key selected, on the cursor line');
  });

  it('the causes expired and rotated are named on the overview and in the usage detail', async () => {
    // wide enough for the whole reason
    const board = suite.render({ screen: 'overview', columns: 200, rows: 40 });
    const f = await board.waitForText('Key old-clients');
    expect(f).toMatch(
      /Key old-clients\s+3 calls rejected in the last hour: 2 key expired, 1 secret replaced by a rotation/,
    );
    await suite.unmount();
    const d = suite.render({ screen: 'usage', columns: 120, rows: 40 });
    await selectRow(d, 'old-clients');
    await d.press('enter');
    const detail = await d.waitForText('rejected: key expired');
    expect(detail).toMatch(/rejected: key expired\s+2/);
    expect(detail).toMatch(/rejected: replaced secret\s+1/);
  });

  it('an auditor sees R and E disabled with the reason; pressing them sends nothing', async () => {
    // wide enough for the reason on the hint line
    const d = suite.render({ role: 'auditor', screen: 'keys', columns: 160, rows: 40 });
    await d.waitForText('READ-ONLY');
    await selectRow(d, 'busy-key');
    expect(d.frame()).toMatch(/R rotate ✕\s+E set expiry ✕.*role auditor is read-only/);
    const audit = suite.auditRows();
    const keys = snapshot(suite.server, 'gateway_keys');
    for (const k of ['R', 'E']) {
      await d.press(k);
      await d.waitFor((f) => f.includes('disabled: role auditor is read-only. Nothing was sent.'), `${k} explained`);
      expect(d.frame()).not.toMatch(/Rotate busy-key|Expiry of busy-key/);
    }
    // U filters, which changes nothing on the appliance: offered to the auditor
    await d.press('U');
    await d.waitForText('active keys unused for 30 days');
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'gateway_keys')).toEqual(keys);
  });

  it('U finds the unused keys among every key, not only the newest page: the appliance answers it', async () => {
    // 600 keys newer than every other, each used a minute ago: the newest page of 500 holds none of the idle ones
    const db = suite.db;
    const created = new Date(Date.now() - 60_000).toISOString();
    insertGatewayKeys(
      db,
      numberedKeys('page', 600, (i) => ({
        name: `busy-${String(i).padStart(3, '0')}`,
        created_at: created,
        last_used_at: created,
      })),
    );
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    const all = await d.waitForText('the newest 500 keys of more');
    expect(rowOf(all, 'idle-month')).toBe('');
    await d.press('U');
    const idle = await d.waitForText('2 keys: active keys unused for 30 days');
    expect(rowOf(idle, 'never-called')).not.toBe('');
    expect(rowOf(idle, 'idle-month')).not.toBe('');
  });
});
