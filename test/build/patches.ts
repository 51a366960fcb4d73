import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// @ts-expect-error: a plain .mjs build script without types
import { NODE_MODULES, PATCHES_DIR } from '../../scripts/dependency-edits.mjs';

/** The files a patch of patches/ changes, relative to node_modules, with `/`. */
export function filesOf(patch: string): string[] {
  const text = readFileSync(join(PATCHES_DIR as string, patch), 'utf8');
  return [...text.matchAll(/^diff --git a\/node_modules\/(\S+) b\//gm)].map((m) => m[1]);
}

/**
 * The files a patch changes as published: node_modules' copies with the patch taken back out
 * (`git apply -R` in a scratch directory, never in node_modules). Throws when the patch does not
 * come back out cleanly, i.e. when node_modules does not hold exactly the patched files.
 */
export function publishedSources(patch: string): Map<string, string> {
  const at = mkdtempSync(join(tmpdir(), 'aa-published-'));
  try {
    const files = filesOf(patch);
    for (const file of files) {
      mkdirSync(dirname(join(at, 'node_modules', file)), { recursive: true });
      copyFileSync(join(NODE_MODULES as string, file), join(at, 'node_modules', file));
    }
    execFileSync('git', ['apply', '--reverse', join(PATCHES_DIR as string, patch)], { cwd: at, stdio: 'pipe' });
    return new Map(files.map((file) => [file, readFileSync(join(at, 'node_modules', file), 'utf8')]));
  } finally {
    rmSync(at, { recursive: true, force: true });
  }
}
