import type { Role } from '../../src/contract/index.js';
import { CLI } from './child-server.js';
import { writeTokenFile } from './cli.js';
import { tempDir } from './fixtures.js';
import type { TestServer } from './server.js';
import { hasTmux, TmuxSession } from './tmux.js';

/** Every screen the dashboard issue names, in the order it lists them. */
export const ISSUE_SCREENS = [
  'connectors',
  'channels',
  'keys',
  'usage',
  'models',
  'routing',
  'audit',
  'journal',
  'budgets',
  'deployment',
  'settings',
  'identity',
] as const;

/** The suite's title; without tmux the suite is skipped and says why, in the title and on stderr. */
export function e2eTitle(name: string): string {
  if (hasTmux()) return name;
  const why = 'SKIPPED: tmux is not installed (apt-get install tmux; .ci/run installs it)';
  console.warn(`${name}: ${why}`);
  return `${name} — ${why}`;
}

/** Text that means a screen did not render cleanly. */
export const TROUBLE =
  /✕ ERROR|✕ STALE|✕ NO DATA|No data: the request failed|failed to draw|does not fit the contract|DISCONNECTED|connection lost|stopped after an unexpected error/;

/**
 * The BUILT dashboard (node bin/appliance-admin.cjs --url … --token-file …) in a tmux pane
 * (120x40 unless told), signed in as `role` with a token from a 0600 file, working in `cwd` (a fresh temporary
 * directory unless given: exports with their default file name land there). Run ensureBuilt() first.
 */
export function startDashboard(
  s: TestServer,
  role: Role,
  session: string,
  o: { cwd?: string; args?: string[]; env?: Record<string, string>; cols?: number; rows?: number } = {},
): Promise<TmuxSession> {
  const tokenFile = writeTokenFile(s.tokens[role]);
  return TmuxSession.start({
    name: session,
    cwd: o.cwd ?? tempDir('aa-e2e-cwd'),
    command: [process.execPath, CLI, '--url', s.url, '--token-file', tokenFile, ...(o.args ?? [])],
    // its own code cache (src/cli/code-cache.ts), not the user's; CI set as CI runners set it,
    // which must not keep Ink from drawing
    env: {
      NODE_OPTIONS: '',
      APPLIANCE_ADMIN_DEBUG: '1',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      XDG_CACHE_HOME: tempDir('aa-e2e-cache'),
      CI: 'true',
      CONTINUOUS_INTEGRATION: 'true',
      ...o.env,
    },
    cols: o.cols,
    rows: o.rows,
  });
}

export { until } from './until.js';

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Rows of every table but the audit trail and what is made of it (tallies, search index, Merkle tree), to show "nothing changed". */
export function domainSnapshot(s: TestServer): Record<string, unknown[]> {
  const tables = s.server.db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('audit', 'audit_counts', 'audit_tree', 'audit_tree_runs') AND name NOT LIKE 'audit\\_search%' ESCAPE '\\' ORDER BY name",
    )
    .all() as { name: string }[];
  return Object.fromEntries(
    tables.map(({ name }) => [name, s.server.db.prepare(`SELECT * FROM "${name}" ORDER BY 1`).all()]),
  );
}
