import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deployment } from '../../src/contract/index.js';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { until } from '../helpers/until.js';
// @ts-expect-error: a plain .mjs build script without types
import { buildDeb } from '../../scripts/deb.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { buildSingleFile } from '../../scripts/dist.mjs';

/**
 * The Debian package (issue 42 §2), built once from the single file: it installs with dpkg into a
 * throwaway root, runs from there, its systemd unit's ExecStart serves, lintian finds no error.
 * Needs dpkg-deb and dpkg-shlibdeps (dpkg-dev) to build; the single file is built here from the
 * source (scripts/dist.mjs); lintian and systemd-analyze for their checks, skipped with the reason
 * when absent.
 */
const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
const UNIT = 'lib/systemd/system/appliance-admin.service';
const has = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
/** The Debian tools that build and install it; without them there is no package to test. */
const MISSING = ['dpkg', 'dpkg-deb', 'dpkg-shlibdeps', 'systemd-sysusers'].filter((tool) => !has(tool));
const LINTIAN = has('lintian');
const SYSTEMD_ANALYZE = has('systemd-analyze');
const IS_ROOT = process.getuid?.() === 0;

let deb: string;
/** what buildDeb said (a missing man page or completion is a warning there) */
const buildLog: string[] = [];
let work: string;
/** the throwaway root dpkg installs into; world-enterable, so that the service's user can run from it */
let root: string;
let lintian: Promise<{ code: number; output: string }> | undefined;
const bin = () => join(root, 'usr/bin/appliance-admin');
/** What runs the installed single file sees: no node on the PATH; the service's user has no home. */
const bareEnv = (asService = false) => ({
  PATH: '/usr/bin:/bin',
  HOME: asService ? '/nonexistent' : work,
  LANG: 'C.UTF-8',
});

beforeAll(async () => {
  if (MISSING.length) return;
  work = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'aa-deb-'));
  // its own single file, built from the source here (as the single file's test does): one left in
  // dist/release may be from older code
  await ensureBuilt();
  const singleFile = await buildSingleFile({ outFile: join(work, `appliance-admin-${version}-linux-x64`) });
  deb = (await buildDeb({
    root: REPO,
    releaseDir: work,
    singleFile,
    version,
    log: (message: string) => buildLog.push(message),
  })) as string;
  // lintian runs while the package is installed and tried; without its check of the spelling in
  // binaries, which reads all of Node's binary and reports only at the info level, on the strings
  // of Node and its dependencies
  if (LINTIAN) {
    lintian = new Promise((resolve) => {
      execFile(
        'lintian',
        ['--no-cfg', '--fail-on', 'error', '-X', 'binaries/spelling', deb],
        { maxBuffer: 1 << 24 },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: `${stdout}${stderr}` }),
      );
    });
  }
  // outside the run's private temp folder, which the service's user could not enter
  root = mkdtempSync('/tmp/aa-deb-root-');
  chmodSync(root, 0o755);
  for (const dir of ['var/lib/dpkg/info', 'var/lib/dpkg/updates', 'var/lib/dpkg/triggers', 'etc'])
    mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), '');
}, 15 * 60_000);

afterAll(async () => {
  await lintian;
  if (root) rmSync(root, { recursive: true, force: true });
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(MISSING.length > 0)(
  `the .deb (builds the single file and the package once; needs dpkg-deb, dpkg-shlibdeps, lintian)${MISSING.length ? ` (SKIPPED: ${MISSING.join(', ')} missing: apt-get install dpkg-dev systemd)` : ''}`,
  () => {
    it('is named for its version and architecture, and depends on what its ELF files need, which this host has', async () => {
      expect(deb).toMatch(new RegExp(`/appliance-admin_${version.replace(/-/, '~')}_amd64\\.deb$`));
      const depends = (await run('dpkg-deb', ['-f', deb, 'Depends'])).stdout.trim();
      // computed by dpkg-shlibdeps from the single file's Node and the SQLite module: never a guess
      expect(depends).toMatch(/(^|, )libc6 \(>= 2\.\d+\)/);
      expect(depends).toMatch(/(^|, )libstdc\+\+6 \(>= [\d.]+\)/);
      expect(depends).toMatch(/(^|, )systemd-sysusers$/);
      // the host that built it could install it: dpkg-checkbuilddeps checks a dependency line against it
      const check = spawnSync('dpkg-checkbuilddeps', ['-d', depends, '/dev/null'], { encoding: 'utf8' });
      expect(check.stderr).toBe('');
    });

    it("holds root's files with Debian's modes: the single file, the server's build without source maps, the SQLite module, the unit, the conffiles", async () => {
      const listing = (await run('dpkg-deb', ['-c', deb], { maxBuffer: 1 << 24 })).stdout.trim().split('\n');
      const entries = new Map(
        listing.map((line) => {
          const [mode, owner, , , , ...rest] = line.split(/\s+/);
          return [rest.join(' ').replace(/^\.\//, '/').split(' -> ')[0], { mode, owner }];
        }),
      );
      for (const [path, { owner }] of entries) expect(`${path} ${owner}`).toBe(`${path} root/root`);
      for (const [path, { mode }] of entries) expect(`${path} ${mode.slice(5, 6)}${mode.slice(8, 9)}`).toMatch(/ --$/);
      expect(entries.get('/usr/bin/appliance-admin')?.mode).toBe('-rwxr-xr-x');
      for (const [path, { mode }] of entries)
        if (mode.startsWith('d')) expect(`${path} ${mode}`).toBe(`${path} drwxr-xr-x`);
      for (const path of [
        '/usr/lib/appliance-admin/bin/appliance-admin.cjs',
        '/usr/lib/appliance-admin/dist/launch.cjs',
        '/usr/lib/appliance-admin/dist/cli.js',
        '/usr/lib/appliance-admin/package.json',
        '/usr/lib/appliance-admin/node_modules/better-sqlite3-n22/prebuilds/linux-x64.node',
        '/usr/lib/appliance-admin/node_modules/better-sqlite3-n22/lib/index.js',
        `/${UNIT}`,
        '/usr/lib/sysusers.d/appliance-admin.conf',
        '/etc/appliance-admin/server.json',
        '/etc/default/appliance-admin',
        '/usr/share/doc/appliance-admin/copyright',
        '/usr/share/doc/appliance-admin/changelog.Debian.gz',
        '/usr/share/man/man1/appliance-admin.1.gz',
        '/usr/share/man/man1/appliance-admin-serve.1.gz',
        '/usr/share/bash-completion/completions/appliance-admin',
        '/usr/share/zsh/vendor-completions/_appliance-admin',
        '/usr/share/fish/vendor_completions.d/appliance-admin.fish',
      ])
        expect(entries.get(path)?.mode, path).toMatch(/^-rw-r--r--$/);
      expect([...entries.keys()].filter((p) => p.endsWith('.map') || p.includes('/demo-template/'))).toEqual([]);
      expect(buildLog.filter((line) => /WARNING/.test(line))).toEqual([]);
      expect(controlFile('conffiles').trim().split('\n').sort()).toEqual([
        '/etc/appliance-admin/server.json',
        '/etc/default/appliance-admin',
      ]);
    });

    it('installs with dpkg --root into a throwaway root (maintainer scripts chrootless with DPKG_ROOT, dependencies not checked: the root has no libc6 package); the postinst makes the user and enables the unit', async () => {
      const install = await run(
        'dpkg',
        [`--root=${root}`, '--force-not-root', '--force-script-chrootless', '--force-depends', '-i', deb],
        { env: { ...process.env, PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      );
      expect(install.stdout).toMatch(/Setting up appliance-admin \(/);
      const status = (await run('dpkg-query', [`--root=${root}`, '-W', '-f=${Status} ${Version}', 'appliance-admin']))
        .stdout;
      expect(status).toBe(`install ok installed ${version.replace(/-/, '~')}`);
      // the service's user, from the package's sysusers.d file, in the root's own passwd
      expect(readFileSync(join(root, 'etc/passwd'), 'utf8')).toMatch(
        /^appliance-admin:x:\d+:\d+:appliance-admin server:\/nonexistent:\/usr\/sbin\/nologin$/m,
      );
      // enabled as deb-systemd-helper does it without a running systemd: the symlink multi-user.target wants
      const wants = join(root, 'etc/systemd/system/multi-user.target.wants/appliance-admin.service');
      expect(readlinkSync(wants)).toBe(`/${UNIT}`);
      // the man page the unit's Documentation= names, as man reads it
      const page = gunzipSync(readFileSync(join(root, 'usr/share/man/man1/appliance-admin.1.gz'))).toString('utf8');
      expect(page).toMatch(/^\.TH "?APPLIANCE-ADMIN"? 1/im);
    });

    it('runs from the installed root with no Node on the PATH: --version names the version and commit, audit verify --help', async () => {
      const versionOut = await run(bin(), ['--version'], { env: bareEnv() });
      expect(versionOut.stdout.trim()).toMatch(
        new RegExp(`^appliance-admin ${version.replace(/\./g, '\\.')} \\([0-9a-f]{7,}(-dirty)?\\)$`),
      );
      const help = await run(bin(), ['audit', 'verify', '--help'], { env: bareEnv() });
      expect(help.stdout).toMatch(/appliance-admin audit verify/);
    });

    it("starts the server as the unit's ExecStart does (its user, a 0700 state directory), from the installed server build with Node 24's SQLite module; it answers on loopback and stops on SIGTERM", async () => {
      const state = join(root, 'var/lib/appliance-admin');
      const cache = join(root, 'var/cache/appliance-admin');
      const user = serviceUser();
      for (const dir of [state, cache]) {
        // what systemd's StateDirectory= and CacheDirectory= make: the service user's own, 0700
        mkdirSync(dirname(dir), { recursive: true });
        mkdirSync(dir);
        chmodSync(dir, 0o700);
        if (user) chownSync(dir, user.uid, user.gid);
      }
      const { command, env, umask } = execStart(state, cache);
      expect(umask).toBe('0077');
      expect(command.slice(0, 4)).toEqual([bin(), 'serve', '--data', state]);
      expect(command).toContain(join(root, 'etc/appliance-admin/server.json'));
      // the shipped options listen on loopback; port 0 rather than the shipped 8080, which may be taken here
      const port = command.indexOf('--port');
      expect(command.slice(port - 2, port + 2)).toEqual(['--host', '127.0.0.1', '--port', '8080']);
      command[port + 1] = '0';
      // with the unit's UMask= (spawn has none: a shell sets it, then becomes the server)
      const child = spawn('/bin/sh', ['-c', `umask ${umask} && exec "$0" "$@"`, ...command], {
        cwd: '/',
        env: { ...bareEnv(true), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const apiUrl = await until(
          'the server to listen',
          () => {
            if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`);
            return /listening on (http:\/\/127\.0\.0\.1:\d+\/v1\/admin)/.exec(out)?.[1];
          },
          30_000,
        );
        const refused = await fetch(`${apiUrl}/deployment`);
        expect(refused.status).toBe(401);
        expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        // a database command of the single file, as the service's user, on the running server's data
        const issued = await run(
          bin(),
          ['token', 'issue', '--data', state, '--role', 'auditor', '--name', 'deb-test'],
          {
            env: bareEnv(true),
            ...(user ? { uid: user.uid, gid: user.gid } : {}),
          },
        );
        const answer = await fetch(`${apiUrl}/deployment`, {
          headers: { authorization: `Bearer ${issued.stdout.trim()}` },
        });
        expect(answer.status).toBe(200);
        expect(Deployment.parse(await answer.json()).host.cpus).toBeGreaterThan(0);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
      // the data stayed the service user's and private
      expect(statSync(state).mode & 0o777).toBe(0o700);
      for (const f of readdirSync(state)) {
        const st = lstatSync(join(state, f));
        expect(`${f} ${st.mode & 0o077}`).toBe(`${f} 0`);
        if (user) expect(`${f} ${st.uid}`).toBe(`${f} ${user.uid}`);
      }
    });

    it.skipIf(!LINTIAN)(
      `lintian reports no error${LINTIAN ? '' : ' (SKIPPED: lintian is not installed: apt-get install lintian)'}`,
      async () => {
        const { code, output } = await lintian!;
        expect(output.split('\n').filter((l) => /^E: /.test(l))).toEqual([]);
        expect(code).toBe(0);
      },
      5 * 60_000,
    );

    it.skipIf(!SYSTEMD_ANALYZE)(
      `systemd-analyze verifies the installed unit and rates its exposure OK${SYSTEMD_ANALYZE ? '' : ' (SKIPPED: no systemd-analyze)'}`,
      async () => {
        const verify = spawnSync('systemd-analyze', ['verify', '--man=no', join(root, UNIT)], { encoding: 'utf8' });
        // verify looks for ExecStart's program on this host, where the package is not installed
        const problems = verify.stderr
          .split('\n')
          .filter(
            (l) =>
              l &&
              !(
                /Command \/usr\/bin\/appliance-admin is not executable/.test(l) &&
                !existsSync('/usr/bin/appliance-admin')
              ),
          );
        expect(problems).toEqual([]);
        const security = spawnSync(
          'systemd-analyze',
          ['security', '--offline=yes', `--root=${root}`, '--no-pager', 'appliance-admin.service'],
          { encoding: 'utf8' },
        );
        expect(security.stdout + security.stderr).toMatch(
          /Overall exposure level for appliance-admin\.service: [0-1]\.\d OK/,
        );
      },
      60_000,
    );

    it('purges from the root: the unit no longer enabled, the conffiles gone, the data directory kept', async () => {
      await run('dpkg', [
        `--root=${root}`,
        '--force-not-root',
        '--force-script-chrootless',
        '--purge',
        'appliance-admin',
      ]);
      expect(existsSync(join(root, 'usr/bin/appliance-admin'))).toBe(false);
      expect(existsSync(join(root, 'etc/appliance-admin/server.json'))).toBe(false);
      expect(existsSync(join(root, 'etc/systemd/system/multi-user.target.wants/appliance-admin.service'))).toBe(false);
      expect(existsSync(join(root, 'var/lib/appliance-admin'))).toBe(true);
    });
  },
);

/** A file of the package's control archive (conffiles, md5sums, …). */
function controlFile(name: string): string {
  const dir = join(work, 'control');
  if (!existsSync(dir)) execFileSync('dpkg-deb', ['-e', deb, dir]);
  return readFileSync(join(dir, name), 'utf8');
}

/** The appliance-admin user of the root's passwd, when this test may run as it (as root). */
function serviceUser(): { uid: number; gid: number } | undefined {
  if (!IS_ROOT) return undefined;
  const line = readFileSync(join(root, 'etc/passwd'), 'utf8').match(/^appliance-admin:x:(\d+):(\d+):/m);
  return line ? { uid: Number(line[1]), gid: Number(line[2]) } : undefined;
}

/**
 * The installed unit's ExecStart as systemd would run it: Environment= and EnvironmentFile= read,
 * ${NAME} one word and $NAME split on white space, STATE_DIRECTORY the given state directory; the
 * absolute paths in it are the root's. With its UMask=.
 */
function execStart(state: string, cache: string): { command: string[]; env: Record<string, string>; umask: string } {
  const unit = readFileSync(join(root, UNIT), 'utf8');
  const settings = (key: string) =>
    [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim()).filter(Boolean);
  const env: Record<string, string> = {};
  for (const file of settings('EnvironmentFile')) {
    const path = join(root, file.replace(/^-/, ''));
    if (!existsSync(path)) continue;
    for (const m of readFileSync(path, 'utf8').matchAll(/^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/gm))
      env[m[1]!] = m[2]!.replace(/^"(.*)"$/, '$1');
  }
  for (const assignment of settings('Environment')) {
    const [key, ...value] = assignment.split('=');
    env[key!] = value.join('=');
  }
  // the cache directory systemd makes is XDG_CACHE_HOME/appliance-admin
  if (env.XDG_CACHE_HOME) env.XDG_CACHE_HOME = join(cache, '..');
  const vars: Record<string, string> = { ...env, STATE_DIRECTORY: state };
  const [execStartLine] = settings('ExecStart');
  const command = execStartLine!.split(/\s+/).flatMap((word) => {
    const whole = /^\$\{(\w+)\}$/.exec(word);
    if (whole) return [vars[whole[1]!] ?? ''];
    const split = /^\$(\w+)$/.exec(word);
    if (split) return (vars[split[1]!] ?? '').split(/\s+/).filter(Boolean);
    return [word.startsWith('/') && !word.startsWith(root) ? join(root, word) : word];
  });
  return { command, env, umask: settings('UMask')[0] ?? '0022' };
}
