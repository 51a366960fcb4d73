import { beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

/** The built CLI's answer to a mistake: one line saying what is wrong, its exit code, no stack. */
describe('the CLI on a mistake', () => {
  beforeAll(() => ensureBuilt(), 120_000);

  it("a dashboard option it cannot read: exit 2 with the option's problem (thrown inside the dashboard's bundle)", async () => {
    const r = await runCli(['--refresh', '1x']);
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toBe('appliance-admin: --refresh must look like 2s, 500ms or 1m, got 1x\n');
  });

  it('a server config it cannot read: exit 1 with the reason, no stack trace', async () => {
    const r = await runCli([
      'serve',
      '--data',
      join(tempDir('aa-cli-errors'), 'data'),
      '--config',
      '/nonexistent/config.json',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^appliance-admin: cannot read config \/nonexistent\/config\.json: ENOENT/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
