import type { Logger } from 'pino';
import type { ServerConfig } from './config.js';
import type { RetryPolicy } from './background.js';

export interface ServerOptions {
  dataDir: string;
  config: ServerConfig;
  /** seed demo data (once) and run the traffic generator */
  demo?: boolean;
  /** a pino logger; omitted means silent */
  logger?: Logger;
  /** TLS: PEM certificate and key */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * the wall clock refused requests are counted by, per minute (http/refusals.ts), and each caller's rate of requests
   * that write the audit trail (http/rate-limit.ts): a test's own; Date.now otherwise
   */
  now?: () => number;
  /** how long a failed background task waits before its next try (background.ts): a test's own; 1 s doubling up to 60 s otherwise */
  background?: RetryPolicy;
}
