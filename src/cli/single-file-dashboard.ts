import * as app from './dashboard-bundle.js';
import { dashboardCommand, type LoadedApp } from './dashboard.js';
import { reportFailure } from './failure.js';

/**
 * The single file's dashboard bundle (scripts/dist.mjs): the dashboard app and its command, in one
 * module that src/cli/single-file.ts runs with V8's code cache.
 */
export async function runDashboard(argv: string[], saveCodeCache: () => void): Promise<number> {
  const loaded: LoadedApp = { app, saveCodeCache };
  try {
    return await dashboardCommand(argv, '', async () => loaded);
  } catch (err) {
    return reportFailure(err);
  }
}
