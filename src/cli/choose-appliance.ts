/**
 * Which configured appliance the command line means: the one --appliance names, else the config
 * file's default-appliance when no --url is given, so that its token never goes to another URL.
 */
import { UsageError } from '../config/usage-error.js';
import { sanitize } from '../text/sanitize.js';
import { configFilePath, type ConfigFile } from './dashboard-config-file.js';
import type { Flags } from './dashboard-flags.js';

export function chooseAppliance(
  values: Pick<Flags, 'appliance' | 'url'>,
  configFile: ConfigFile | undefined,
  env: NodeJS.ProcessEnv,
) {
  const appliances = configFile?.config.appliances ?? {};
  if (values.appliance !== undefined) {
    if (values.url) throw new UsageError('--appliance and --url both name the appliance: give one');
    const appliance = appliances[values.appliance];
    if (!appliance) {
      const names = Object.keys(appliances);
      throw new UsageError(
        `no appliance "${sanitize(values.appliance, 60)}" in ${configFile?.file ?? configFilePath(undefined, env)}` +
          (names.length ? ` (it names: ${names.join(', ')})` : ''),
      );
    }
    return { appliance, named: true };
  }
  const byDefault = configFile?.config['default-appliance'];
  if (values.url || byDefault === undefined) return { appliance: undefined, named: false };
  const appliance = appliances[byDefault];
  return { appliance, named: false, fileTokenFile: appliance?.['token-file'] };
}
