/** Where the config file is: alone, so that completing an appliance name loads nothing else to find it. */
import { dirname, join } from 'node:path';
import { defaultSessionFile } from '../client/session/store.js';

/** --config FILE, else config.yaml beside the stored sign-in ($XDG_CONFIG_HOME/appliance-admin, else ~/.config/…). */
export const configFilePath = (flag: string | undefined, env: NodeJS.ProcessEnv): string =>
  flag ?? join(dirname(defaultSessionFile(env)), 'config.yaml');
