import type { AnyScreen } from '../src/ui/screen-api.js';
import { connectorsScreen } from './connectors.js';
import { channelsScreen } from './channels.js';
import { keysScreen } from './keys.js';
import { usageScreen } from './usage.js';
import { modelsScreen } from './models.js';
import { routingScreen } from './routing.js';
import { budgetsScreen } from './budgets.js';

/** Every screen, in Tab order. Adding a screen: its file, plus one line here. */
export const screens: AnyScreen[] = [
  connectorsScreen,
  channelsScreen,
  keysScreen,
  usageScreen,
  modelsScreen,
  routingScreen,
  budgetsScreen,
];
