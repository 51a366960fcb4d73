import { parseArgs } from 'node:util';
import pino from 'pino';
import { buildServer } from '../server/app.js';
import { loadConfig } from '../server/config.js';
import { readFileSync } from 'node:fs';
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { announceReady } from '../server/demo/ipc-ready.js';
import { bundledDemoTemplate, copyDemoTemplate } from './demo-template.js';
import { UsageError } from '../config/usage-error.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const SERVE_USAGE = helpText(commandAt(['serve']));

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string' },
      demo: { type: 'boolean', default: false },
      config: { type: 'string' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      help: { type: 'boolean', short: 'h' },
      // hidden: a parent that forked this process (the embedded demo) gets the URL and tokens over IPC
      'ipc-ready': { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(SERVE_USAGE);
    return 0;
  }
  if (!values.data) throw new UsageError('--data DIR is required');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0..65535, got ${values.port}`);
  const level = values['log-level'];
  if (!Object.hasOwn(pino.levels.values, level) && level !== 'silent') {
    throw new UsageError(`--log-level must be one of ${[...Object.keys(pino.levels.values), 'silent'].join(', ')}`);
  }
  if (Boolean(values['tls-cert']) !== Boolean(values['tls-key']))
    throw new UsageError('--tls-cert and --tls-key go together: give both, or neither for plain http');
  // A log that cannot be written (stderr on a full disk: ENOSPC) loses its lines, never the
  // appliance: with no listener the stream's error would end the process (issue 37 §7).
  // sonic-boom also retries a failed write for ever when it flushes at exit (flushSync sleeps and
  // tries again on any error): once writing failed, the log drops its lines rather than hang there.
  const logDestination = pino.destination(2);
  logDestination.once('error', () => {
    logDestination.write = () => true;
    logDestination.flushSync = () => undefined;
    logDestination.flush = (cb?: (err?: Error) => void) => cb?.();
  });
  logDestination.on('error', () => undefined);
  const logger = pino({ level }, logDestination);
  const { loadDemoConfig } = values.demo ? await import('../server/demo/config.js') : { loadDemoConfig: undefined };
  // the TLS files are checked before anything is written: a mistake there leaves no data directory behind
  const tls = values['tls-cert'] && values['tls-key'] ? readTls(values['tls-cert'], values['tls-key']) : undefined;
  // a fresh demo starts from the build's prebuilt history and seeds only the time since
  const template = values.demo && !values.config ? bundledDemoTemplate() : undefined;
  if (template) copyDemoTemplate(template, values.data);
  const config = values.config
    ? loadConfig(values.config)
    : loadDemoConfig
      ? loadDemoConfig(values.data)
      : loadConfig(undefined);
  const server = await buildServer({ dataDir: values.data, config, demo: values.demo, logger, tls });
  try {
    await server.app.listen({ port, host: values.host });
  } catch (err) {
    await server.close();
    const e = err as NodeJS.ErrnoException;
    throw new UsageError(listenFailure(e, values.host, port));
  }
  const addr = server.app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const hostForUrl = values.host.includes(':') ? `[${values.host}]` : values.host;
  console.log(`appliance-admin listening on ${tls ? 'https' : 'http'}://${hostForUrl}:${actualPort}/v1/admin`);
  const ipc = values['ipc-ready'] && typeof process.send === 'function';
  if (ipc) announceReady(server.db, `${tls ? 'https' : 'http'}://${hostForUrl}:${actualPort}`);

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.off('disconnect', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // the parent is gone (or let go of us, maybe while we were starting): do not linger
    if (ipc) {
      process.on('disconnect', stop);
      if (!process.connected) stop();
    }
  });
  logger.info('shutting down');
  await server.close();
  if (ipc && process.connected) process.disconnect();
  return 0;
}

export { UsageError };

/** Why the server cannot listen on host:port, in one line (every listen failure is a start-up error). */
function listenFailure(e: NodeJS.ErrnoException, host: string, port: number): string {
  switch (e.code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use`;
    case 'EACCES':
      return `not allowed to listen on port ${port}`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host}: it is not an address of this machine`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `cannot listen on ${host}: no such host (${e.code})`;
    default:
      return `cannot listen on ${host} port ${port}: ${e.code ?? e.message}`;
  }
}

/**
 * The PEM certificate and key, checked here so that a wrong file is one line naming it, not the
 * TLS library's stack when the server starts: each file holds what it should, and they belong together.
 */
function readTls(certFile: string, keyFile: string): { cert: Buffer; key: Buffer } {
  const cert = readTlsFile(certFile);
  const key = readTlsFile(keyFile);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new UsageError(
      `--tls-cert ${certFile} holds no PEM certificate${/PRIVATE KEY-----/.test(cert.toString('latin1')) ? ' (it holds a private key: are --tls-cert and --tls-key swapped?)' : ''}`,
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    const why =
      (err as NodeJS.ErrnoException).code === 'ERR_MISSING_PASSPHRASE'
        ? ' (it is encrypted; give an unencrypted key)'
        : /CERTIFICATE-----/.test(key.toString('latin1'))
          ? ' (it holds a certificate)'
          : '';
    throw new UsageError(`--tls-key ${keyFile} holds no PEM private key${why}`);
  }
  if (!x509.checkPrivateKey(privateKey))
    throw new UsageError(`--tls-key ${keyFile} is not the key of the certificate in --tls-cert ${certFile}`);
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new UsageError(`cannot use --tls-cert ${certFile} with --tls-key ${keyFile}: ${(err as Error).message}`);
  }
  return { cert, key };
}

function readTlsFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
