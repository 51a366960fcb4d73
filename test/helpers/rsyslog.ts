import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { makeCertificates } from './tls.js';
import { until } from './until.js';

/**
 * A real rsyslog receiver (Debian's rsyslog and rsyslog-gnutls), started by the test as the
 * appliance's copy off the host would meet it: imtcp with the gtls stream driver on a loopback
 * port, RFC 5425 (octet-counted) framing, each message of appliance-admin written as its RFC 5424
 * line to one file (the template docs/operations.md gives). It runs in the test's own directory,
 * as root or not, and can be stopped for real (a signal) and started again on the same port.
 */
export interface Rsyslog {
  port: number;
  /** the file it writes */
  file: string;
  /** the CA that signed its certificate (PEM file), for the appliance's ca_file */
  caFile: string;
  /** its whole lines so far (none before the file exists) */
  lines(): string[];
  /** a signal (SIGKILL by default) and wait for the process to end */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** start it again with the same configuration and port, and wait until it accepts connections */
  start(): Promise<void>;
  readonly running: boolean;
}

const RSYSLOGD = existsSync('/usr/sbin/rsyslogd') ? '/usr/sbin/rsyslogd' : 'rsyslogd';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });

/** rsyslog's configuration: TLS on `port`, the appliance's messages as RFC 5424 lines in `file`. */
function rsyslogConf(o: { dir: string; port: number; file: string; ca: string; cert: string; key: string }) {
  return `global(
  workDirectory="${o.dir}"
  maxMessageSize="256k"
  net.enableDNS="off"
  parser.escapeControlCharactersOnReceive="off"
  defaultNetstreamDriverCAFile="${o.ca}"
  defaultNetstreamDriverCertFile="${o.cert}"
  defaultNetstreamDriverKeyFile="${o.key}"
)
main_queue(queue.type="Direct")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
input(type="imtcp" port="${o.port}" address="127.0.0.1")
if $app-name == "appliance-admin" then {
  action(type="omfile" file="${o.file}" template="RSYSLOG_SyslogProtocol23Format")
}
`;
}

export async function startRsyslog(dir: string): Promise<Rsyslog> {
  mkdirSync(dir, { recursive: true });
  // rsyslog may drop privileges or run as another user: its directory must be reachable
  chmodSync(dir, 0o755);
  const tls = await makeCertificates('rsyslog test CA');
  const caFile = join(dir, 'ca.pem');
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  writeFileSync(caFile, tls.ca);
  writeFileSync(certFile, tls.cert);
  writeFileSync(keyFile, tls.key, { mode: 0o600 });
  const port = await freePort();
  const file = join(dir, 'audit.log');
  const conf = join(dir, 'rsyslog.conf');
  writeFileSync(conf, rsyslogConf({ dir, port, file, ca: caFile, cert: certFile, key: keyFile }));
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const rs: Rsyslog = {
    port,
    file,
    caFile,
    get running() {
      return child !== undefined;
    },
    // whole lines only: the last may be half written
    lines: () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(0, -1) : []),
    stop: async (signal = 'SIGKILL') => {
      if (!child) return;
      child.kill(signal);
      await exited;
    },
    start: async () => {
      if (child) throw new Error('rsyslogd is running');
      const proc = spawn(RSYSLOGD, ['-n', '-f', conf, '-i', join(dir, 'rsyslogd.pid')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = proc;
      proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
      exited = new Promise((resolve) =>
        proc.once('exit', () => {
          if (child === proc) child = undefined;
          resolve();
        }),
      );
      running.add(proc);
      void exited.then(() => running.delete(proc));
      await until(
        `rsyslogd to accept connections on ${port} (${output.slice(0, 500)})`,
        async () => child === proc && (await accepts(port)),
        15_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nrsyslogd said: ${output.slice(0, 2000)}`);
      });
    },
  };
  await rs.start();
  return rs;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
