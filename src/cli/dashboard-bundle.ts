/**
 * The entry of the dashboard's bundle (dist/dashboard-HASH.cjs, loaded by src/cli/dashboard.ts):
 * the dashboard and its command line's parser, so that both come from the one cached file.
 */
export { startDashboard, TERMINAL_HUNG_UP } from '../dashboard/shell/start.js';
export { dashboardArgs } from './dashboard-args.js';
export { argvForAppliance, DASHBOARD_USAGE } from './dashboard-flags.js';

/**
 * Keeps a fork the dashboard's kept checkpoint found where the CLI's own checks keep theirs. In the
 * bundle, not the launcher: the checkpoint code it needs (crypto, the canonical encoder) would be
 * compiled at every start there; here it is loaded when a fork is found.
 */
export const writeForkEvidence = async (evidence: string, foundAt: string): Promise<string> =>
  new (await import('./checkpoint-state.js')).CheckpointState(process.env).writeFork(evidence, foundAt);
