import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * A command's one-line failure may quote a file (JSON.parse puts a piece of a broken config in its
 * message): the line is sanitized, and a usage text keeps its lines.
 */
afterEach(() => vi.restoreAllMocks());

async function stderrOf(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation(
    ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write,
  );
  vi.spyOn(process.stdout, 'write').mockImplementation((() => true) as typeof process.stdout.write);
  try {
    return { code: await main(argv), stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('CLI failure messages with outside text', () => {
  it("serve with a broken config file: one line naming it, without the file's escape sequences", async () => {
    const dir = tempDir('aa-bad-config');
    const config = join(dir, 'appliance.json');
    writeFileSync(config, '\x1b]0;owned title\x07\x1b[2J\x9b31m{ not json');
    const r = await stderrOf(['serve', '--data', join(dir, 'data'), '--config', config]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^appliance-admin: cannot read config ${config.replace(/[.]/g, '\\.')}: .+\\n$`),
    );
    expect(r.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('a usage error keeps the lines of its usage text', async () => {
    const r = await stderrOf(['token', 'issue', '--role', 'auditor', '--name', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^appliance-admin: --data DIR is required\nUsage: appliance-admin token issue .*\n {7}appliance-admin token list --data DIR\n/,
    );
  });
});
