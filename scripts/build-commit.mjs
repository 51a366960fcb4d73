// The commit a build is made from, recorded in the bundle (esbuild's define of APPLIANCE_ADMIN_COMMIT,
// read by src/cli/version-line.ts) so that `appliance-admin --version` names it. A tree with changes
// not committed says so ("-dirty"); a build outside git (an unpacked tarball) says that instead of
// guessing.
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';

/** `abc1234`, `abc1234-dirty`, or `built outside git`. */
export function buildCommit(root) {
  const git = (...args) =>
    execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  let commit;
  try {
    // the repository's own top, not a parent's: a tarball unpacked inside some other checkout is outside git
    if (git('rev-parse', '--show-toplevel') !== realpathSync(root).replace(/\/$/, '')) return 'built outside git';
    commit = git('rev-parse', '--short=7', 'HEAD');
  } catch {
    return 'built outside git';
  }
  return git('status', '--porcelain', '--untracked-files=no') ? `${commit}-dirty` : commit;
}
