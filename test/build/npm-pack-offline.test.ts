import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { runProgram, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 42 §5: `npm pack` gives a tarball that `npm install ./FILE.tgz` installs with npm's
 * --offline and an empty cache: nothing to fetch (the bundles in dist/ hold the dashboard and its
 * dependencies; the native SQLite module, the server's, is optional) and nothing to build (no
 * install script). The installed CLI then reads a real server on loopback; `serve` says what it lacks.
 * The tarball is packed from this checkout's build (--ignore-scripts: `prepack` would build again).
 */
const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };

let consumer: string;
let installed: string;
let s: TestServer;
const env = () => ({ ...process.env, NODE_OPTIONS: '', XDG_CONFIG_HOME: tempDir('aa-pack-config') });

const cli = (args: string[]) =>
  runProgram(process.execPath, [join(consumer, 'node_modules/.bin/appliance-admin'), ...args], {
    env: env(),
    cwd: consumer,
  });

beforeAll(async () => {
  await ensureBuilt();
  const packed = tempDir('aa-pack');
  await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', packed], { cwd: REPO });
  const tarball = join(packed, `appliance-admin-${version}.tgz`);
  consumer = tempDir('aa-pack-consumer');
  await run('npm', ['init', '-y'], { cwd: consumer });
  const npmEnv = { ...process.env, npm_config_cache: tempDir('aa-pack-empty-cache') };
  await run('npm', ['install', tarball, '--offline', '--no-audit', '--no-fund'], { cwd: consumer, env: npmEnv });
  installed = join(consumer, 'node_modules', 'appliance-admin');
  s = await startTestServer();
}, 180_000);
afterAll(() => s?.close());

describe('npm install of the packed tarball, offline with an empty cache', () => {
  it('installs the package alone, with no script to run', () => {
    expect(readdirSync(join(consumer, 'node_modules')).filter((f) => !f.startsWith('.'))).toEqual(['appliance-admin']);
    const { scripts = {} } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    for (const install of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(scripts).not.toHaveProperty(install);
  });

  it('runs: --version, a screen of a real appliance, the dashboard with its options', async () => {
    expect((await cli(['--version'])).stdout).toMatch(new RegExp(`^appliance-admin ${version} \\(\\S+\\)\\n$`));
    const token = writeTokenFile(s.tokens.auditor);
    const overview = await cli(['get', 'overview', '--json', '--url', s.url, '--token-file', token]);
    expect(overview.stderr).toBe('');
    expect(JSON.parse(overview.stdout)).toBeTypeOf('object');
    // the dashboard's bundle loads (its options' help comes from it)
    const help = await cli(['--url', s.url, '--help']);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('--token-file');
  });

  it('serve says that the native SQLite module is not installed, in one line, exit 1', async () => {
    const r = await cli(['serve', '--data', tempDir('aa-pack-data')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^appliance-admin: the server needs its native SQLite module \(better-sqlite3(-n22)?\)/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});
