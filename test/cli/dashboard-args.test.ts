import { beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDashboardArgs } from '../../src/cli/dashboard-args.js';
import { parseInterval } from '../../src/cli/dashboard-flags.js';
import { screens } from '../../screens/index.js';
import { tempDir } from '../helpers/fixtures.js';
import { startHttpPeer } from '../helpers/http-peer.js';
import { runCli } from '../helpers/cli.js';
import { ensureBuilt } from '../helpers/child-server.js';

// the built CLI (bin/appliance-admin.cjs), as a user runs it
beforeAll(ensureBuilt, 180_000);

const tokenFile = (mode: number, text = 'aat_secret-token\n') => {
  const f = join(tempDir('aa-tok'), 'token');
  writeFileSync(f, text);
  chmodSync(f, mode);
  return f;
};

describe('dashboard command line', () => {
  it('parses `demo --role auditor` (what `npm start -- --role auditor` runs)', () => {
    expect(parseDashboardArgs(['demo', '--role', 'auditor'], {})).toMatchObject({
      demo: true,
      role: 'auditor',
      refreshMs: 2000,
      readOnly: false,
    });
    expect(parseDashboardArgs(['demo'], {})).toMatchObject({ demo: true, role: 'it_admin' });
    expect(() => parseDashboardArgs(['demo', '--role', 'root'], {})).toThrow(/--role must be one of/);
  });

  it("turns the screen-reader mode on with --screen-reader or Ink's INK_SCREEN_READER=true", () => {
    expect(parseDashboardArgs(['demo'], {})).toMatchObject({ screenReader: false });
    expect(parseDashboardArgs(['demo', '--screen-reader'], {})).toMatchObject({ screenReader: true });
    expect(parseDashboardArgs(['demo'], { INK_SCREEN_READER: 'true' })).toMatchObject({ screenReader: true });
    expect(parseDashboardArgs(['demo'], { INK_SCREEN_READER: 'false' })).toMatchObject({ screenReader: false });
  });

  it('takes --theme dark (the default), light or high-contrast, and names them for another', () => {
    expect(parseDashboardArgs(['demo'], {})).toMatchObject({ theme: 'dark' });
    expect(parseDashboardArgs(['demo', '--theme', 'light'], {})).toMatchObject({ theme: 'light' });
    expect(() => parseDashboardArgs(['demo', '--theme', 'sepia'], {})).toThrow(
      '--theme must be one of dark, light, high-contrast, got sepia',
    );
  });

  it('reads the token from a 0600 file, and refuses a file others can read', () => {
    const ok = parseDashboardArgs(
      ['--url', 'http://127.0.0.1:8080', '--token-file', tokenFile(0o600), '--read-only', '--refresh', '500ms'],
      {},
    );
    expect(ok).toMatchObject({
      url: 'http://127.0.0.1:8080',
      token: 'aat_secret-token',
      readOnly: true,
      refreshMs: 500,
    });
    const loose = tokenFile(0o644);
    expect(() => parseDashboardArgs(['--url', 'https://x', '--token-file', loose], {})).toThrow(
      /readable by group or others \(mode 0644\); run: chmod 600/,
    );
    expect(() => parseDashboardArgs(['--url', 'https://x', '--token-file', tokenFile(0o640)], {})).toThrow(/mode 0640/);
  });

  it('takes the token from APPLIANCE_ADMIN_TOKEN, and never echoes it in errors', () => {
    expect(parseDashboardArgs(['--url', 'https://x'], { APPLIANCE_ADMIN_TOKEN: 'aat_env' })).toMatchObject({
      token: 'aat_env',
    });
    let message = '';
    try {
      parseDashboardArgs(['--url', 'https://x', '--token-file', tokenFile(0o600, 'aat_a b')], {});
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/one token on one line/);
    expect(message).not.toContain('aat_a');
    expect(() => parseDashboardArgs(['--url', 'https://x'], {})).toThrow(
      /--token-file FILE or the APPLIANCE_ADMIN_TOKEN/,
    );
  });

  it('rejects --role outside demo, and unknown commands', () => {
    expect(() =>
      parseDashboardArgs(['--url', 'https://x', '--role', 'auditor'], { APPLIANCE_ADMIN_TOKEN: 't' }),
    ).toThrow(/only applies to demo/);
    expect(() => parseDashboardArgs(['frobnicate'], {})).toThrow(/unknown command/);
  });

  it('parses refresh intervals', () => {
    expect(parseInterval('2s')).toBe(2000);
    expect(parseInterval('750ms')).toBe(750);
    expect(parseInterval('1m')).toBe(60_000);
    expect(parseInterval('3')).toBe(3000);
    expect(() => parseInterval('fast')).toThrow();
    expect(() => parseInterval('10ms')).toThrow(/between/);
  });

  it('--screen must name a screen, like get SCREEN; demo too', () => {
    const names = screens.map((x) => x.name).join(', ');
    expect(names).toMatch(/^overview, connectors, channels, keys/);
    const env = { APPLIANCE_ADMIN_TOKEN: 't' };
    expect(() => parseDashboardArgs(['--url', 'https://x', '--screen', 'nosuch'], env)).toThrow(
      `unknown screen "nosuch"; the screens are: ${names}`,
    );
    expect(() => parseDashboardArgs(['demo', '--screen', 'nosuch'], {})).toThrow(
      `unknown screen "nosuch"; the screens are: ${names}`,
    );
    expect(parseDashboardArgs(['--url', 'https://x', '--screen', 'keys'], env)).toMatchObject({ screen: 'keys' });
  });

  it('the dashboard with an unknown --screen exits 2 with the screen names, before connecting', async () => {
    const peer = await startHttpPeer((_req, res) => res.end());
    try {
      const r = await runCli(['--screen', 'nosuch', '--url', peer.url], {
        env: { APPLIANCE_ADMIN_TOKEN: 'aat_unused' },
      });
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `appliance-admin: unknown screen "nosuch"; the screens are: ${screens.map((x) => x.name).join(', ')}\n`,
      });
      expect(peer.connections()).toBe(0);
    } finally {
      await peer.close();
    }
  });
});
