import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evidenceCommand } from '../../src/cli/evidence.js';
import { writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A full disk while a pack is written (issue 36 §10). No unprivileged test can fill a real file
 * system on its own, so this is the one fault faked: node:fs/promises' writeFile fails with ENOSPC
 * on the pack's manifest, as write(2) would, everything else is real (server, HTTP, the other files).
 */
const full = vi.hoisted(() => ({ on: false }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  const writeFile: typeof real.writeFile = async (file, data, options) => {
    if (full.on && String(file).endsWith('manifest.json'))
      throw Object.assign(new Error(`ENOSPC: no space left on device, write`), {
        code: 'ENOSPC',
        errno: -28,
        syscall: 'write',
        path: String(file),
      });
    return real.writeFile(file, data, options);
  };
  return { ...real, default: { ...real, writeFile }, writeFile };
});

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  full.on = false;
  await s?.close();
});

describe('evidence -o DIR on a full disk', () => {
  it('says so in one line, exits 1, and leaves nothing behind (an empty DIR that was there stays)', async () => {
    const base = tempDir('aa-evidence-enospc');
    const dir = join(base, 'pack');
    mkdirSync(dir);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    full.on = true;
    let code: number;
    let said: string[];
    let printed: unknown[];
    try {
      code = await evidenceCommand([
        '--since',
        '30d',
        '-o',
        dir,
        '--url',
        s.url,
        '--token-file',
        writeTokenFile(s.tokens.auditor),
      ]);
    } finally {
      full.on = false;
      said = err.mock.calls.map((c) => String(c[0]));
      printed = out.mock.calls;
      err.mockRestore();
      out.mockRestore();
    }
    expect(said).toEqual([
      `appliance-admin: evidence: cannot write the pack ${dir} (manifest.json): the disk is full (ENOSPC); ` +
        'nothing was left behind\n',
    ]);
    expect(printed).toEqual([]);
    expect(code).toBe(1);
    expect(readdirSync(base)).toEqual(['pack']);
    expect(readdirSync(dir)).toEqual([]);
  });
});
