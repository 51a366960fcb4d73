import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { startTestServer } from '../helpers/server.js';
import { whereAndWho } from '../../src/dashboard/shell/Header.js';
import { widthOf } from '../../src/dashboard/kit/text.js';

const suite = setupScreenSuite({
  setup: async (s) => {
    for (const name of ['narrow-key', 'a-key-with-a-name-longer-than-the-column']) {
      const res = await s.call('POST', '/gateway/keys', {
        body: { name, quota: { requests_per_minute: 30, tokens_per_minute: 40_000, tokens_per_day: 1_500_000 } },
      });
      expect(res.status).toBe(201);
    }
    const revoked = (await s.call('GET', '/gateway/keys')).json.data.find(
      (k: { name: string }) => k.name === 'narrow-key',
    );
    expect((await s.call('POST', `/gateway/keys/${revoked.id}/revoke`)).status).toBe(200);
  },
});

const helpRow = (f: string, key: string, label: string) => new RegExp(`^ {2}${key} +${label}`, 'm').test(f);

describe('an 80x24 terminal', () => {
  it('help reaches every binding of the journal: a "more" marker, arrows and PgDn scroll, Esc closes', async () => {
    const d = suite.render({ screen: 'journal', columns: 80, rows: 24 });
    await d.waitForText('[journal]');
    await d.press('?');
    const first = await d.waitForText('Keys everywhere');
    expect(first).toMatch(/… \d+ more below \(↓ PgDn\)/);
    expect(first).toContain('↑↓ PgUp PgDn scroll');
    expect(helpRow(first, 'o', 'this run')).toBe(false);
    expect(helpRow(first, 'P', 'pause polling')).toBe(true); // the last shell key; the actions follow
    await d.press('pgdn');
    await d.waitFor((f) => helpRow(f, 'o', 'this run'), 'o this run after PgDn');
    await d.press('pgdn');
    const end = await d.waitFor((f) => helpRow(f, ':quit', 'quit'), 'the last command after PgDn');
    for (const [k, label] of [
      ['\\{', 'newest'],
      ['w', 'export'],
    ])
      expect(helpRow(end, k, label)).toBe(true);
    expect(end).toMatch(/… \d+ above \(↑ PgUp\)/);
    expect(end.split('\n').length).toBeLessThan(24);
    await d.press('home');
    await d.waitFor((f) => !helpRow(f, 'o', 'this run') && f.includes('more below'), 'back at the top');
    await d.press('down', 'j');
    await d.waitForText(/… 22 more below \(↓ PgDn\), 2 above/); // help has s S, P, f c ] [ { w v o, 8 commands
    await d.press('esc');
    await d.waitFor((f) => !f.includes('Help · Esc'), 'help closed');
    await d.press('?');
    await d.waitForText('Help · Esc');
    await d.press('?');
    await d.waitFor((f) => !f.includes('Help · Esc'), 'help closed by ?');
  });

  it('keys: every prefix whole and the rejections kept; the day a key was created said under the table', async () => {
    const d = suite.render({ screen: 'keys', columns: 80, rows: 24 });
    // once the last hour's usage is in, each row ends with its rejections
    const f = await d.waitFor((x) => /narrow-key.* \d+\s*$/m.test(x), 'the rejections counted');
    const keys = suite.db.prepare('SELECT name, prefix, created_at FROM gateway_keys').all() as {
      name: string;
      prefix: string;
      created_at: string;
    }[];
    expect(keys.length).toBe(2);
    for (const k of keys) {
      const line = f.split('\n').find((l) => l.includes(k.name.slice(0, 12)))!;
      expect(line).toContain(` ${k.prefix} `);
      // the last hour's rejections, kept at the end of the row (the day of creation gives way to them)
      expect(line).toMatch(/ \d+\s*$/);
      expect(widthOf(line)).toBeLessThanOrEqual(80);
    }
    expect(f).toMatch(/^ {2}Name .*Rej 1h\s*$/m);
    const first = keys.find((k) => f.includes(`› ${k.name.slice(0, 12)}`))!;
    expect(f).toContain(`Created ${first.created_at.slice(0, 10)}`);
    expect(f).toMatch(/narrow-key\s+revoked\s/);
  });

  it('keys: the hints keep "? help" and "q quit", dropping lesser keys first, also with a reason for ✕', async () => {
    const hints = (f: string) => f.split('\n').at(-2) ?? '';
    for (const role of ['it_admin', 'auditor'] as const) {
      const d = suite.render({ role, screen: 'keys', columns: 80, rows: 24 });
      const f = await d.waitForText('narrow-key');
      const line = hints(f);
      expect(line).toMatch(/^n new\b/);
      expect(line).toContain('? help');
      expect(line).toMatch(/q quit$/);
      expect(widthOf(line)).toBeLessThanOrEqual(80);
      // the least wanted of the shell's keys went, not the way to help or out
      expect(line).not.toContain('Tab next');
      // the reason in its short words, whole ("role au…" said nothing)
      if (role === 'auditor') expect(line).toMatch(/x revoke ✕ +h history +\(✕ read-only\) +│ \? help/);
      await suite.unmount();
    }
  });

  it("an auditor's hints at 60 columns: the job's keys stay with their ✕, a reason that does not fit goes whole", async () => {
    const d = suite.render({ role: 'auditor', screen: 'keys', columns: 60, rows: 20 });
    const line = (await d.waitForText('narrow-key')).split('\n').at(-2) ?? '';
    expect(line).toMatch(/^n new ✕ +u quota ✕ +x revoke ✕ +h history +│ \? help +q quit$/);
    expect(line).not.toContain('(✕'); // never a cut "(✕ role au…", which says nothing
    expect(widthOf(line)).toBeLessThanOrEqual(60);
    // the header says why, and the key says it whole when pressed, sending nothing
    expect(d.frame().split('\n')[0]).toContain('READ-ONLY');
    await d.press('x');
    await d.waitForText('revoke: disabled: role auditor is read-only');
  });

  it('the header keeps host:port readable, for a long subject, read-only and while disconnected', async () => {
    const own = await startTestServer();
    const hostPort = own.url.replace(/^http:\/\//, '').replace(/\/.*$/, '');
    const d = suite.render({ server: own, role: 'auditor', screen: 'keys', columns: 80, rows: 24 });
    const ok = await d.waitForText('● connected');
    expect(ok.split('\n')[0]).toContain(hostPort);
    await own.close();
    const down = await d.waitForText('DISCONNECTED');
    expect(down.split('\n')[0]).toContain(hostPort);
    expect(down.split('\n')[0]).toMatch(/READ-ONLY\s+·\s+✕ DISCONNECTED · retry in \d+ s/);
  });

  it('the header shortens the program name, subject, scheme and path before the address', () => {
    const base = {
      subject: 'alice.martin@northwind.example',
      role: 'auditor',
      readOnly: 'role auditor',
      forcedReadOnly: false,
      width: 80,
    };
    const conn = '✕ DISCONNECTED · retry in 30 s';
    const wide = whereAndWho({ ...base, url: 'http://127.0.0.1:32741', width: 160 }, conn);
    expect(wide.where).toBe('appliance-admin  http://127.0.0.1:32741');
    expect(wide.who).toBe('alice.martin@northwind.… (auditor)');
    const narrow = whereAndWho({ ...base, url: 'https://appliance.example:8443/admin-api' }, conn);
    expect(narrow.where).toMatch(/^appliance\.example:8443/);
    expect(narrow.who).toBe('(auditor)');
    const connected = whereAndWho({ ...base, url: 'https://appliance.example:8443/admin-api' }, '● connected');
    expect(connected.where).toBe('appliance.example:8443/…');
    expect(connected.who).toBe('alice.marti… (auditor)');
    const fits = whereAndWho({ ...base, url: 'http://127.0.0.1:32741' }, conn);
    expect(fits.where).toContain('127.0.0.1:32741');
    for (const w of [fits, narrow]) {
      const right = 2 + widthOf(w.who) + 1 + widthOf(w.ro) + 5 + widthOf(conn);
      expect(widthOf(w.where) + right).toBeLessThanOrEqual(80);
    }
  });

  it('help that fits shows no marker and does not scroll', async () => {
    const d = suite.render({ screen: 'journal', columns: 100, rows: 50 });
    await d.waitForText('[journal]');
    await d.press('?');
    const f = await d.waitForText('Keys everywhere');
    expect(helpRow(f, 'o', 'this run')).toBe(true);
    expect(f).not.toContain('more below');
    expect(f).not.toContain('PgDn scroll');
    await d.press('esc');
  });
});
