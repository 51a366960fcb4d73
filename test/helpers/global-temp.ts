import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * vitest globalSetup: every temporary file and folder of a run (tests, servers and CLIs they
 * start: all go through os.tmpdir()) lands in one folder, removed when the run ends, instead of
 * thousands left in /tmp.
 */
export default function setup(): () => void {
  // each vitest project runs the global setup again, in the same process: one folder is enough
  if (process.env.AA_TEST_RUN_TMPDIR) return () => {};
  const previous = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'aa-test-run-'));
  process.env.TMPDIR = dir;
  process.env.AA_TEST_RUN_TMPDIR = dir;
  return () => {
    delete process.env.AA_TEST_RUN_TMPDIR;
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
