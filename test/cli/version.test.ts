import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';

/** Issue 27 §4: the installed command says which release it is, from the package's own version. */
describe('appliance-admin --version', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };

  // issue 42: and the commit the build was made from (scripts/build-commit.mjs): one of this
  // repository's, or why there is none (dist/ is rebuilt for a change of the source, not of the commit)
  it.each([['--version'], ['-V']])(
    '%s prints the name, the package version and the commit, and exits 0',
    async (flag) => {
      const r = await runCli([flag]);
      expect(r).toMatchObject({ code: 0, stderr: '' });
      const said = new RegExp(
        `^appliance-admin ${version.replace(/\./g, '\\.')} \\(([0-9a-f]{7,}(-dirty)?|built outside git)\\)\\n$`,
      );
      expect(r.stdout).toMatch(said);
      const commit = said.exec(r.stdout)![1].replace(/-dirty$/, '');
      if (commit !== 'built outside git') execFileSync('git', ['-C', REPO, 'cat-file', '-e', `${commit}^{commit}`]);
    },
  );

  it('--help says how to ask for it', async () => {
    const r = await runCli(['--help']);
    expect(r.stdout).toContain('--version (-V)');
  });
});
