/** Options that several commands take, described once. */
import type { OptionSpec } from './spec.js';

/** How every client command finds the appliance (src/cli/connection.ts). */
export const CONNECTION: readonly OptionSpec[] = [
  {
    name: 'url',
    value: 'URL',
    description: 'the appliance (http(s)://host:port, with or without /v1/admin)',
  },
  {
    name: 'token-file',
    value: 'FILE',
    completes: 'files',
    description: `a file holding the bearer token, mode 0600 (or set APPLIANCE_ADMIN_TOKEN)
without either: the stored sign-in of appliance-admin login, and its
appliance when --url is not given`,
  },
  {
    name: 'ca-file',
    value: 'FILE',
    completes: 'files',
    description: "PEM CA certificate to trust for the appliance's TLS",
  },
  {
    name: 'insecure-http',
    description: 'allow plain http:// to a host other than this machine (the token travels unencrypted)',
  },
];

export const CONFIG_FILE: OptionSpec = {
  name: 'config',
  value: 'FILE',
  completes: 'files',
  description: 'the config file (default: $XDG_CONFIG_HOME/appliance-admin/config.yaml, else ~/.config/…)',
};

export const APPLIANCE: OptionSpec = {
  name: 'appliance',
  value: 'NAME',
  completes: 'appliances',
  description: 'an appliance named in the config file (its URL, token file, CA file, read-only, audit key)',
};

/** The on-host commands' data directory (serve, token, audit rotate-key). */
export const DATA_DIR: OptionSpec = {
  name: 'data',
  value: 'DIR',
  completes: 'dirs',
  description: "the server's data directory (its database and keys)",
};

export const REFRESH: OptionSpec = {
  name: 'refresh',
  value: 'INTERVAL',
  description: "poll interval: 500ms, 2s, 1m (default: the config file's refresh, else 2s)",
};

/** Where the config file is when no --config names one, for the man pages' FILES. */
export const CONFIG_FILE_PATH =
  '$XDG_CONFIG_HOME/appliance-admin/config.yaml (else ~/.config/appliance-admin/config.yaml)';
