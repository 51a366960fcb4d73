import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PackError, auditTrailSummary, writeEvidencePack, type PackSource } from '../audit-chain/evidence-pack.js';
import { headerOf } from '../client/response-body.js';
import { parseApplianceUrl } from '../client/appliance-url.js';
import { exportTypeProblem } from '../client/download.js';
import { TransportError } from '../client/errors.js';
import { VERSION } from '../contract/version.js';
import { ApplianceStream } from './appliance-stream.js';
import { reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { parseWhen } from './export.js';
import { printErr, printOut } from './print.js';
import { UsageError } from '../config/usage-error.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const EVIDENCE_USAGE = helpText(commandAt(['evidence']));

export async function evidenceCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv[0] === 'verify') return (await import('./evidence-verify.js')).evidenceVerifyCommand(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      since: { type: 'string' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(EVIDENCE_USAGE);
    return 0;
  }
  if (positionals.length) throw new UsageError(`unexpected ${positionals[0]}\n${EVIDENCE_USAGE}`);
  if (!values.since) throw new UsageError(`--since WHEN is required (e.g. --since 30d)\n${EVIDENCE_USAGE}`);
  const madeAt = new Date();
  const since = parseWhen(values.since, '--since', madeAt.getTime());
  const dir = resolve(values.output ?? `evidence-${madeAt.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`);
  const connection = resolveConnection(values, env, EVIDENCE_USAGE);
  const appliance = new ApplianceStream(connection);
  // Ctrl-C or SIGTERM stops the pack: its temporary folder is removed before the command ends (a
  // second signal is not caught, and ends it at once)
  const stop = new AbortController();
  let stoppedBy: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    stop.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const token = typeof connection.token === 'string' ? connection.token : await connection.token();
    const made = await writeEvidencePack(streamSource(appliance), dir, {
      since,
      madeAt: madeAt.toISOString(),
      url: displayUrl(connection.url),
      holdsToken: (text) => text.includes(token),
      tool: { name: 'appliance-admin', version: VERSION },
      signal: stop.signal,
    });
    if (!made.ok) {
      printErr(
        `appliance-admin: evidence: ${made.file} line ${made.line} holds ${made.secret}; ` +
          'the pack was removed, nothing is left behind',
      );
      return 1;
    }
    printOut(`evidence pack written to ${dir}`);
    printOut(`  audit trail: ${auditTrailSummary(made, since)}`);
    printOut(`  check it with: appliance-admin evidence verify ${dir} --key KEY.pem`);
    return 0;
  } catch (err) {
    if (stoppedBy) {
      printErr(`appliance-admin: evidence: stopped (${stoppedBy}); nothing was written to ${dir}`);
      return stoppedBy === 'SIGINT' ? 130 : 143;
    }
    if (err instanceof PackError) {
      printErr(`appliance-admin: evidence: ${err.message}`);
      return 1;
    }
    return reportClientError(err, 'evidence');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await appliance.close();
  }
}

const displayUrl = (url: string) => parseApplianceUrl(url).display;

/** The pack's source over the CLI's streaming connection: answers as they came. */
const streamSource = (a: ApplianceStream): PackSource => ({
  json: (route, query, signal) => a.json(route, query, signal),
  async export(route, query, signal) {
    const res = await a.get(route, query, signal);
    const wrongType = exportTypeProblem(String(query.format), headerOf(res.headers, 'content-type'));
    if (wrongType) {
      res.body.destroy();
      throw new TransportError('protocol', `the answer is not an export: ${wrongType}`);
    }
    return { header: (name) => headerOf(res.headers, name), body: res.body };
  },
  seal: (request, signal) => a.post('sealAudit', request, signal),
});
