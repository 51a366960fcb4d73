import type { AnyScreen } from '../src/dashboard/kit/screen-api.js';
import { overviewScreen } from './overview.js';
import { connectorsScreen } from './connectors.js';
import { jobsScreen } from './jobs.js';
import { channelsScreen } from './channels.js';
import { keysScreen } from './keys.js';
import { usageScreen } from './usage.js';
import { spendScreen } from './spend.js';
import { modelsScreen } from './models.js';
import { routingScreen } from './routing.js';
import { auditScreen } from './audit.js';
import { journalScreen } from './journal.js';
import { budgetsScreen } from './budgets.js';
import { deploymentScreen } from './deployment.js';
import { settingsScreen } from './settings.js';
import { identityScreen } from './identity.js';
import { logScreen } from './log.js';

/** Every screen, in Tab order. Adding a screen: its file, plus one line here. */
export const screens: AnyScreen[] = [
  overviewScreen,
  connectorsScreen,
  channelsScreen,
  keysScreen,
  usageScreen,
  spendScreen,
  modelsScreen,
  routingScreen,
  auditScreen,
  journalScreen,
  budgetsScreen,
  // reached mostly by Enter on a connector; last of the lists, so the first screens keep their Tab order
  jobsScreen,
  deploymentScreen,
  settingsScreen,
  identityScreen,
  logScreen,
];
