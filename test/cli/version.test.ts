import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';

/** Issue 27 §4: the installed command says which release it is, from the package's own version. */
describe('appliance-admin --version', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };

  it.each([['--version'], ['-V']])('%s prints the name and the package version, alone, and exits 0', async (flag) => {
    const r = await runCli([flag]);
    expect(r).toEqual({ code: 0, stdout: `appliance-admin ${version}\n`, stderr: '' });
  });

  it('--help says how to ask for it', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout).toContain('--version (-V)');
  });
});
