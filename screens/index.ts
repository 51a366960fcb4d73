import type { AnyScreen } from '../src/ui/screen-api.js';
import { connectorsScreen } from './connectors.js';
import { channelsScreen } from './channels.js';
import { keysScreen } from './keys.js';

/** Every screen, in Tab order. Adding a screen: its file, plus one line here. */
export const screens: AnyScreen[] = [
  connectorsScreen,
  channelsScreen,
  keysScreen,
];
