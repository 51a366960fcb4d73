import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import type { AuditForwardConfig } from '../config.js';

/** Where the copy goes, with the TLS material read once at start. */
export interface ForwardTarget {
  /** the configured URL (it holds no credential: the config refuses a user, password or query) */
  url: string;
  tls: boolean;
  host: string;
  port: number;
  /** the name the receiver's certificate must carry, when not the host */
  servername?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  facility: number;
  warnBehindEntries: number;
  warnAfterMs: number;
}

/** A ConfigError by name: the CLI prints its message alone, as for any other mistake in the config file. */
class AuditForwardConfigError extends Error {
  override name = 'ConfigError';
}

/** The RFC 5425 port, when a syslog-tls URL names none. */
const SYSLOG_TLS_PORT = 6514;

/**
 * The receiver from the config's `audit_forward`, its files read and their PEM checked now: a path
 * that does not exist, cannot be read or holds no certificate or key stops the server at start with
 * the setting and the path, never with the file's contents.
 */
export function forwardTarget(cfg: AuditForwardConfig): ForwardTarget {
  const u = new URL(cfg.url);
  const tls = u.protocol === 'syslog-tls:';
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const read = (setting: string, file: string | undefined) => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new AuditForwardConfigError(`audit_forward.${setting}: cannot read ${file} (${code})`);
    }
  };
  const target: ForwardTarget = {
    url: cfg.url,
    tls,
    host,
    port: u.port ? Number(u.port) : SYSLOG_TLS_PORT,
    servername: cfg.server_name,
    ca: read('ca_file', cfg.ca_file),
    cert: read('cert_file', cfg.cert_file),
    key: read('key_file', cfg.key_file),
    facility: cfg.facility,
    warnBehindEntries: cfg.warn_behind_entries,
    warnAfterMs: cfg.warn_after_seconds * 1000,
  };
  if (!tls && (cfg.ca_file || cfg.cert_file || cfg.server_name))
    throw new AuditForwardConfigError(
      'audit_forward: ca_file, cert_file and server_name are for syslog-tls://; this URL is plain syslog-tcp://',
    );
  if (tls) checkPem(target, cfg);
  return target;
}

/** Node's own reading of the files, so that a wrong file fails at start rather than at each connection. */
function checkPem(t: ForwardTarget, cfg: AuditForwardConfig): void {
  const attempts: [string, () => void][] = [
    [`ca_file ${cfg.ca_file}`, () => t.ca && createSecureContext({ ca: t.ca })],
    [
      `cert_file ${cfg.cert_file} and key_file ${cfg.key_file}`,
      () => t.cert && createSecureContext({ cert: t.cert, key: t.key }),
    ],
  ];
  for (const [what, attempt] of attempts) {
    try {
      attempt();
    } catch (err) {
      // the reason is OpenSSL's (e.g. "no start line"): it names no content of the file
      const reason = String((err as Error).message)
        .split('\n')[0]
        .slice(0, 120);
      throw new AuditForwardConfigError(`audit_forward.${what}: not a usable PEM certificate or key (${reason})`);
    }
  }
  if (t.ca && !/-----BEGIN CERTIFICATE-----/.test(t.ca.toString('latin1')))
    throw new AuditForwardConfigError(`audit_forward.ca_file ${cfg.ca_file}: holds no PEM certificate`);
}
