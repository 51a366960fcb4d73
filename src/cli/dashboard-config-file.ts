/** Where the dashboard's config file is, and reading it when there is one. */
import { existsSync } from 'node:fs';
import { screens } from '../../screens/index.js';
import { configFilePath } from './config-file-path.js';
import type { DashboardConfig } from '../config/schema.js';
import { configCheck } from '../dashboard/shell/config-check.js';

/** The config file as read (load.ts), with where it was. */
export interface ConfigFile {
  file: string;
  config: DashboardConfig;
}

export { configFilePath };

/**
 * The config file, when there is one (or --config names one). Its reader, with zod's schema and
 * the YAML parser, is loaded only then: without a file the dashboard starts without them.
 */
export async function readConfigFile(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<ConfigFile | undefined> {
  const file = configFilePath(flag, env);
  if (flag === undefined && !existsSync(file)) return undefined;
  const { loadConfigFile } = await import('../config/load.js');
  return { file, config: loadConfigFile(file, configCheck(screens)) };
}
