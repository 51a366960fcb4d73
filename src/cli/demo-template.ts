import { constants, copyFileSync, cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDataDir, makePrivate } from '../server/db/data-dir.js';
import { LOCK_FILE } from '../server/db/lock.js';
import { DB_FILE } from '../server/db/open.js';

/**
 * The prebuilt demo (issue 39 §8): `node scripts/build.mjs` starts a demo server once on
 * dist/demo-template (30 days of history seeded, never listening, no traffic) and closes it; a
 * demo server on an empty data directory starts from a copy of it and seeds only the time since
 * (src/server/demo/seed.ts, catchUpDemo), rather than the whole history every time.
 */
const DEMO_TEMPLATE_DIR = 'demo-template';

/** dist/demo-template when this code runs from the bundle and the build made it; undefined from source. */
export function bundledDemoTemplate(): string | undefined {
  if (!fileURLToPath(import.meta.url).endsWith('.js')) return undefined;
  // bundled: this code lives in a chunk directly under dist/
  const dir = fileURLToPath(new URL(`./${DEMO_TEMPLATE_DIR}/`, import.meta.url));
  return existsSync(join(dir, DB_FILE)) ? dir : undefined;
}

/**
 * Copies the template's files (the database, the audit signing key and signed head) into dataDir
 * when it holds no database yet, each private as the server's own, and its demo sources and model
 * files (what the demo's configuration would otherwise write, its operations database built row
 * by row); returns whether it copied.
 */
export function copyDemoTemplate(template: string, dataDir: string): boolean {
  ensureDataDir(dataDir);
  if (existsSync(join(dataDir, DB_FILE))) return false;
  for (const e of readdirSync(template, { withFileTypes: true })) {
    if (e.isDirectory()) {
      cpSync(join(template, e.name), join(dataDir, e.name), { recursive: true, force: false });
      continue;
    }
    if (!e.isFile() || e.name === LOCK_FILE) continue;
    const to = join(dataDir, e.name);
    try {
      // a copy-on-write clone where the file system has them, a plain copy elsewhere
      copyFileSync(join(template, e.name), to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    } catch (err) {
      // another server is starting on this directory: it copies, and its lock turns this one away
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
    makePrivate(to);
  }
  return true;
}

/** Makes the template in dir (empty or absent): a demo server built there once, seeded, then closed. */
export async function makeDemoTemplate(dir: string): Promise<void> {
  const [{ buildServer }, { loadDemoConfig }] = await Promise.all([
    import('../server/app.js'),
    import('../server/demo/config.js'),
  ]);
  const server = await buildServer({ dataDir: dir, config: loadDemoConfig(dir), demo: true });
  await server.close();
}
