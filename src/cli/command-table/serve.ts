/** `serve`: the reference server, on this host. */
import { CONFIG_FILE, DATA_DIR } from './shared-options.js';
import type { CommandSpec } from './spec.js';

export const SERVE: CommandSpec = {
  name: 'serve',
  summary: 'the reference server of the appliance administration API',
  usage: [
    'serve --data DIR [--port 8080] [--host 127.0.0.1] [--demo] [--config FILE]',
    '      [--tls-cert FILE --tls-key FILE] [--log-level info]',
  ],
  brief: 'serve --data DIR [--port P] [--demo]',
  description: `Serves the appliance administration API (/v1/admin) from DIR, made on the first start, and
prints the URL it listens on. Plain http unless --tls-cert and --tls-key are given.`,
  options: [
    DATA_DIR,
    { name: 'port', value: 'PORT', description: 'the TCP port, 0 to 65535 (default 8080; 0: any free one)' },
    { name: 'host', value: 'ADDRESS', description: 'the address to listen on (default 127.0.0.1)' },
    { name: 'demo', description: 'seed the demo appliance (its connectors, keys, 30 days of history)' },
    { ...CONFIG_FILE, description: "the server's config file (YAML; default: built-in settings)" },
    { name: 'tls-cert', value: 'FILE', completes: 'files', description: 'PEM certificate chain to serve https with' },
    { name: 'tls-key', value: 'FILE', completes: 'files', description: 'the PEM private key of --tls-cert' },
    {
      name: 'log-level',
      value: 'LEVEL',
      completes: { choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
      description: 'fatal, error, warn, info (default), debug, trace or silent; the log goes to stderr',
    },
  ],
  examples: [{ command: 'serve --data /var/lib/appliance-admin --port 8443', says: 'the server on port 8443' }],
};
