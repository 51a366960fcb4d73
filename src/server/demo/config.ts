import { ServerConfig } from '../config.js';

/** The demo appliance's configuration, with its local sources and model files created under dataDir. */
export function loadDemoConfig(_dataDir: string): ServerConfig {
  return ServerConfig.parse({});
}
