import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dashboardArgs } from '../../src/cli/dashboard-args.js';
import { readConfigFile } from '../../src/cli/dashboard-config-file.js';
import { saveScreenColumns } from '../../src/config/save.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

// The config file decides the URL, the token file and the CA: one that someone else could have
// written is refused before anything is read from it or sent (issue 37, point 2).

beforeAll(ensureBuilt, 180_000);
afterEach(() => {
  vi.restoreAllMocks();
});

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
/** No stored sign-in, no token variable: only what the test gives. */
const env = (): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: tempDir('aa-config-home') });

/**
 * The case: a config file that sends this user's token (a 0600 file) to another https
 * host with its own CA. `dir` is private (0700), the file 0644, until a test loosens one.
 */
function steeringConfig(): { dir: string; file: string } {
  const dir = tempDir('aa-config-trust');
  writeFileSync(join(dir, 'prod.token'), 'aat_never_sent\n', { mode: 0o600 });
  writeFileSync(join(dir, 'other-ca.pem'), 'PEM');
  const file = join(dir, 'config.yaml');
  // absolute paths: a test loads it through a link elsewhere too
  writeFileSync(
    file,
    `default-appliance: prod\nappliances:\n  prod:\n    url: https://other.example\n    token-file: ${join(dir, 'prod.token')}\n    ca-file: ${join(dir, 'other-ca.pem')}\n`,
  );
  chmodSync(file, 0o644);
  return { dir, file };
}

/** The one-line refusal of loading `file` (as the dashboard does), or null when it is accepted. */
async function refusal(file: string): Promise<string | null> {
  const err = await dashboardArgs(['--config', file], env()).then(
    () => null,
    (e: Error) => e,
  );
  if (err === null) return null;
  expect(err.name).toBe('UsageError');
  expect(err.message).not.toContain('\n');
  return err.message;
}

describe('a config file someone else could have written', () => {
  it('is refused when group or others can write it: exit 2, one line, nothing sent; accepted after chmod go-w', async () => {
    const { file } = steeringConfig();
    chmodSync(file, 0o666);
    const line = `the config file ${file} can be changed by group or others (mode 0666), so it is not used; run: chmod go-w ${file}`;
    expect(await refusal(file)).toBe(line);
    // as a user runs it: before any connection (other.example would not answer anyway)
    const r = await runCli(['--config', file], { env: env() });
    expect([r.code, r.stderr, r.stdout]).toEqual([2, `appliance-admin: ${line}\n`, '']);
    // `config` (which shows the settings) refuses it the same way
    expect((await runCli(['config', '--config', file], { env: env() })).stderr).toBe(`appliance-admin: ${line}\n`);

    chmodSync(file, 0o620); // group alone is enough
    expect(await refusal(file)).toMatch(/\(mode 0620\), so it is not used; run: chmod go-w /);
    chmodSync(file, 0o644); // readable by others is fine: it holds no secret
    expect(await dashboardArgs(['--config', file], env())).toMatchObject({
      url: 'https://other.example',
      token: 'aat_never_sent',
    });
  });

  it('is refused in a folder group or others can write (a shared one such as /tmp too)', async () => {
    const { dir, file } = steeringConfig();
    chmodSync(dir, 0o770);
    expect(await refusal(file)).toBe(
      `the config file's folder ${dir} can be changed by group or others (mode 0770), so ${file} is not used; run: chmod go-w ${dir}`,
    );
    // others cannot replace a file of this user's in a sticky folder, but a folder of one's own is asked for
    chmodSync(dir, 0o1777);
    expect(await refusal(file)).toBe(
      `the config file's folder ${dir} is a shared directory (sticky bit, like /tmp), so ${file} is not used; keep the config file in a folder of your own`,
    );
    chmodSync(dir, 0o755);
    expect(await refusal(file)).toBeNull();
  });

  it('through a symbolic link: the file it points to, the link’s folder and the target’s folder', async () => {
    const { dir: targetDir, file: target } = steeringConfig();
    const linkDir = tempDir('aa-config-link');
    const link = join(linkDir, 'config.yaml');
    symlinkSync(target, link);
    expect(await refusal(link)).toBeNull();
    // the target's mode, named by the path given
    chmodSync(target, 0o666);
    expect(await refusal(link)).toMatch(
      new RegExp(`^the config file ${link} can be changed by group or others \\(mode 0666\\)`),
    );
    chmodSync(target, 0o644);
    chmodSync(targetDir, 0o777);
    expect(await refusal(link)).toBe(
      `the config file's folder ${targetDir} can be changed by group or others (mode 0777), so ${link} is not used; run: chmod go-w ${targetDir}`,
    );
    chmodSync(targetDir, 0o700);
    chmodSync(linkDir, 0o777); // the link itself could be pointed elsewhere
    expect(await refusal(link)).toMatch(new RegExp(`^the config file's folder ${linkDir} can be changed`));
  });

  it('is refused when another user owns it', async () => {
    const { file } = steeringConfig();
    const owner = statSync(file).uid;
    // as a user who is not the owner (any user, root too: root's config file is root's own)
    vi.spyOn(process, 'getuid').mockReturnValue(owner + 1000);
    expect(await refusal(file)).toBe(
      `the config file ${file} belongs to another user (uid ${owner}), so it is not used; use a config file of your own`,
    );
    vi.restoreAllMocks();
    if (asRoot) {
      // and for real: root reading nobody's file
      chownSync(file, NOBODY, NOBODY);
      expect(await refusal(file)).toBe(
        `the config file ${file} belongs to another user (uid ${NOBODY}), so it is not used; use a config file of your own`,
      );
      const r = await runCli(['--config', file], { env: env() });
      expect([r.code, r.stderr.split('\n').length]).toEqual([2, 2]);
    }
  });

  // Only root can give a folder to another user; other runs have the case above, of the file.
  it.runIf(asRoot)("is refused in another user's folder; root's folder is fine", async () => {
    const { dir, file } = steeringConfig();
    chownSync(dir, NOBODY, NOBODY);
    expect(await refusal(file)).toBe(
      `the config file's folder ${dir} belongs to another user (uid ${NOBODY}), so ${file} is not used; keep the config file in a folder of your own`,
    );
    // nobody's file in root's folder, read as nobody
    chownSync(dir, 0, 0);
    chownSync(file, NOBODY, NOBODY);
    vi.spyOn(process, 'getuid').mockReturnValue(NOBODY);
    expect(await refusal(file)).toBeNull();
  });
});

describe('the files the tool writes itself', () => {
  it('config init and :columns save make them so that loading never refuses them, whatever the umask', async () => {
    const before = process.umask(0o000);
    try {
      const initFile = join(tempDir('aa-config-trust'), 'new', 'config.yaml');
      const init = await runCli(['config', 'init', '--config', initFile], { env: env() });
      expect([init.code, init.stderr]).toEqual([0, '']);
      const saved = join(tempDir('aa-config-trust'), 'new', 'config.yaml');
      await saveScreenColumns(saved, 'keys', ['Name']);
      for (const file of [initFile, saved]) {
        expect(statSync(file).mode & 0o777).toBe(0o600);
        expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
        expect(await readConfigFile(file, env())).toMatchObject({ file });
      }
    } finally {
      process.umask(before);
    }
  });

  it('config init into a folder it would refuse says so and writes nothing', async () => {
    const dir = join(tempDir('aa-config-trust'), 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const file = join(dir, 'config.yaml');
    const r = await runCli(['config', 'init', '--config', file], { env: env() });
    expect([r.code, r.stderr]).toEqual([
      2,
      `appliance-admin: the config file's folder ${dir} can be changed by group or others (mode 0777), so ${file} is not used; run: chmod go-w ${dir}\n`,
    ]);
    expect(existsSync(file)).toBe(false);
  });

  it(':columns save does not write into a file loading would refuse', async () => {
    const { file } = steeringConfig();
    chmodSync(file, 0o666);
    const text = readFileSync(file, 'utf8');
    await expect(saveScreenColumns(file, 'keys', ['Name'])).rejects.toThrow(
      `the config file ${file} can be changed by group or others (mode 0666)`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});
