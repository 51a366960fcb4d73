/**
 * The entry of the dashboard's bundle (dist/dashboard-HASH.cjs, loaded by src/cli/dashboard.ts):
 * the dashboard and its command line's parser, so that both come from the one cached file.
 */
export { startDashboard, TERMINAL_HUNG_UP } from '../dashboard/shell/start.js';
export { dashboardArgs } from './dashboard-args.js';
export { argvForAppliance, DASHBOARD_USAGE } from './dashboard-flags.js';
