import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { enableCodeCache } from './code-cache.js';
import { isDashboard } from './commands.js';
import { dashboardCommand } from './dashboard.js';
import { reportFailure } from './failure.js';

/**
 * The CLI's entry, bundled as dist/launch.cjs for bin/appliance-admin.cjs. CommonJS, so that the
 * dashboard, the command run most, starts without Node's ES module loader
 * (docs/performance.md); every other command is handed to main.ts in the ES modules (dist/cli.js).
 */
export async function launch(argv: string[], dist: string): Promise<number> {
  // Node 22.1+: Node's compile cache for all that loads from here on (Node 20: the dashboard's own, below)
  enableCodeCache();
  if (!isDashboard(argv)) {
    const { main } = (await import(pathToFileURL(join(dist, 'cli.js')).href)) as typeof import('./main.js');
    return main(argv);
  }
  try {
    return await dashboardCommand(argv, dist);
  } catch (err) {
    return reportFailure(err);
  }
}
