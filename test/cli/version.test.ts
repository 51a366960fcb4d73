import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
// @ts-expect-error: a plain .mjs build script without types
import { buildCommit } from '../../scripts/build-commit.mjs';

/** Issue 27 §4: the installed command says which release it is, from the package's own version. */
describe('appliance-admin --version', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };

  // issue 42: and the commit the build was made from (scripts/build-commit.mjs)
  it.each([['--version'], ['-V']])(
    '%s prints the name, the package version and the commit, and exits 0',
    async (flag) => {
      const r = await runCli([flag]);
      expect(r).toEqual({ code: 0, stdout: `appliance-admin ${version} (${buildCommit(REPO)})\n`, stderr: '' });
    },
  );

  it('--help says how to ask for it', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout).toContain('--version (-V)');
  });
});
