import { createWriteStream, existsSync, readdirSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { headerOf, parseApplianceUrl } from '../client/api-client.js';
import { exportTypeProblem } from '../client/download.js';
import { TransportError } from '../client/errors.js';
import { ApplianceStream } from './appliance-stream.js';
import { reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, resolveConnection } from './connection.js';
import { auditTrailSummary, makeEvidencePack, type PackSource } from './evidence-pack.js';
import { parseWhen } from './export.js';
import { printErr, printOut } from './print.js';
import { UsageError } from './usage-error.js';

export const EVIDENCE_USAGE = `Usage: appliance-admin evidence --since 30d [-o DIR] [--url URL] [--token-file FILE]
                                   [--ca-file FILE]
       appliance-admin evidence verify DIR [--key PEM_FILE]

Gathers an auditor's evidence pack into DIR (default evidence-<time>): the audit trail for the
range as JSON Lines and CSV with their signed checkpoints and the public keys, the agent journal,
the gateway key inventory (never a secret), the role matrix, settings, deployment, install plan,
models, routing, budgets, a manifest.json of every file's sha256 and size, and a README.txt on
how to check it. Making a pack is audited (its audit export is marked purpose=evidence); an
auditor's token is enough.
  --since WHEN       the range's start: a duration before now (30d, 12h) or an RFC 3339 time
  -o, --output DIR   where to write; must not exist or be empty
  verify DIR         checks every file against the manifest and the audit chain (see audit verify)
${CONNECTION_USAGE}

Exit status: 0 done (verify: every check held), 1 the appliance refused or a check failed, 2 bad usage.`;

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
  if (existsSync(dir) && readdirSync(dir).length)
    throw new UsageError(`${dir} is not empty; choose another directory for the pack`);
  const connection = resolveConnection(values, env, EVIDENCE_USAGE);
  const appliance = new ApplianceStream(connection);
  let created = false;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    created = true;
    const token = typeof connection.token === 'string' ? connection.token : await connection.token();
    const made = await makeEvidencePack(streamSource(appliance), dir, {
      since,
      madeAt: madeAt.toISOString(),
      url: displayUrl(connection.url),
      token,
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
    if (created) await rm(dir, { recursive: true, force: true });
    return reportClientError(err, 'evidence');
  } finally {
    await appliance.close();
  }
}

const displayUrl = (url: string) => parseApplianceUrl(url).display;

/** The pack's source over the CLI's streaming connection. */
const streamSource = (a: ApplianceStream): PackSource => ({
  json: (route, query) => a.json(route, query),
  exportTo: (route, query, file) => exportTo(a, route, query, file),
});

/** Streams an export into the pack; its signed checkpoint and filter flag from the headers. */
async function exportTo(a: ApplianceStream, route: string, query: Record<string, unknown>, file: string) {
  const res = await a.get(route, query);
  const wrongType = exportTypeProblem(String(query.format), headerOf(res.headers, 'content-type'));
  if (wrongType) {
    res.body.destroy();
    throw new TransportError('protocol', `the answer is not an export: ${wrongType}`);
  }
  let lines = 0;
  res.body.on('data', (chunk: Buffer) => {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  });
  await pipeline(res.body, createWriteStream(file, { mode: 0o600 }));
  return {
    headers: {
      statement: headerOf(res.headers, 'audit-export-statement') ?? null,
      checkpoint: headerOf(res.headers, 'audit-checkpoint') ?? null,
    },
    lines,
  };
}
