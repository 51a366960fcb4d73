import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readdirSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { parseCheckpointFile } from '../audit-verify/checkpoint.js';
import { headerOf, parseApplianceUrl } from '../client/api-client.js';
import { exportTypeProblem } from '../client/download.js';
import { ApiError, TransportError } from '../client/errors.js';
import { VERSION } from '../version.js';
import { ApplianceStream } from './appliance-stream.js';
import { reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, resolveConnection } from './connection.js';
import { PACK_README, roleMatrix, secretIn } from './evidence-contents.js';
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
    const facts = await writePack(appliance, dir, {
      since,
      madeAt: madeAt.toISOString(),
      url: displayUrl(connection.url),
    });
    for (const f of readdirSync(dir)) {
      const secret = await secretIn(join(dir, f), token);
      if (secret) {
        await rm(dir, { recursive: true, force: true });
        printErr(`appliance-admin: evidence: ${f} holds ${secret}; the pack was removed, nothing is left behind`);
        return 1;
      }
    }
    await writeManifest(dir, facts);
    printOut(`evidence pack written to ${dir}`);
    printOut(
      `  audit trail: ${facts.audit_entries.toLocaleString('en-US')} entries since ${since}, ` +
        `checkpoint #${facts.checkpoint_seq}`,
    );
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

interface PackFacts {
  since: string;
  madeAt: string;
  url: string;
  made_by: unknown;
  audit_entries: number;
  checkpoint_seq: number | null;
  appliance_version: unknown;
}

async function writePack(
  a: ApplianceStream,
  dir: string,
  o: { since: string; madeAt: string; url: string },
): Promise<PackFacts> {
  const session = (await a.json('session')) as Record<string, unknown>;
  const filters = { start_time: o.since };
  // purpose=evidence puts "this export made an evidence pack" in the export's own audit entry
  const jsonl = await exportTo(
    a,
    'exportAudit',
    { format: 'jsonl', ...filters, purpose: 'evidence' },
    dir,
    'audit.jsonl',
  );
  await writeJson(dir, 'audit.checkpoint.json', { checkpoint: jsonl.checkpoint, filtered: jsonl.filtered, filters });
  const csv = await exportTo(a, 'exportAudit', { format: 'csv', ...filters, purpose: 'evidence' }, dir, 'audit.csv');
  await writeJson(dir, 'audit.csv.checkpoint.json', { checkpoint: csv.checkpoint, filtered: csv.filtered, filters });
  await exportTo(a, 'exportJournal', { format: 'jsonl', ...filters }, dir, 'journal.jsonl');
  const keys = await publicKeys(a);
  await writeJson(dir, 'public-keys.json', keys);
  await writeJson(dir, 'keys.json', await allPages(a, 'listKeys'));
  await writeJson(dir, 'models.json', await allPages(a, 'listModels'));
  await writeJson(dir, 'routing.json', await allPages(a, 'listRouting'));
  const deployment = await a.json('deployment');
  for (const [file, route] of [
    ['settings.json', 'settings'],
    ['install-plan.json', 'installPlan'],
    ['budgets.json', 'getBudgets'],
  ] as const)
    await writeJson(dir, file, await a.json(route));
  await writeJson(dir, 'deployment.json', deployment);
  await writeJson(dir, 'role-matrix.json', roleMatrix());
  const fingerprints = Array.isArray(keys) ? keys.map((k) => String((k as { fingerprint?: unknown }).fingerprint)) : [];
  await writeFile(join(dir, 'README.txt'), PACK_README({ ...o, fingerprints }), { mode: 0o600 });
  return {
    ...o,
    made_by: { subject: session.subject, role: session.role },
    audit_entries: jsonl.lines,
    checkpoint_seq: jsonl.checkpoint?.seq ?? null,
    appliance_version: (deployment as { version?: unknown })?.version ?? null,
  };
}

/** Streams an export into the pack; its signed checkpoint and filter flag from the headers. */
async function exportTo(a: ApplianceStream, route: string, query: Record<string, unknown>, dir: string, name: string) {
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
  await pipeline(res.body, createWriteStream(join(dir, name), { mode: 0o600 }));
  const header = headerOf(res.headers, 'audit-checkpoint');
  const parsed = header ? parseCheckpointFile(header) : undefined;
  return {
    checkpoint: parsed && typeof parsed !== 'string' ? parsed.checkpoint : null,
    filtered: headerOf(res.headers, 'audit-export-filtered') === 'true',
    lines,
  };
}

/** The appliance's checkpoint keys; none from an appliance without the audit chain (no such route). */
async function publicKeys(a: ApplianceStream): Promise<unknown> {
  try {
    return ((await a.json('/audit/checkpoints', { limit: 1 })) as { public_keys?: unknown }).public_keys ?? [];
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return [];
    throw err;
  }
}

/** Every item of a paged list. */
async function allPages(a: ApplianceStream, route: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let after: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const body = (await a.json(route, { limit: 500, after })) as { data?: unknown[]; next_cursor?: unknown };
    out.push(...(body.data ?? []));
    if (typeof body.next_cursor !== 'string') break;
    after = body.next_cursor;
  }
  return out;
}

const writeJson = (dir: string, name: string, value: unknown) =>
  writeFile(join(dir, name), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });

async function writeManifest(dir: string, facts: PackFacts): Promise<void> {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(join(dir, name))) hash.update(chunk as Buffer);
    files.push({ name, sha256: hash.digest('hex'), bytes: (await stat(join(dir, name))).size });
  }
  await writeJson(dir, 'manifest.json', {
    pack: 'appliance-admin evidence pack v1',
    made_at: facts.madeAt,
    made_by: facts.made_by,
    appliance: { url: facts.url, version: facts.appliance_version },
    tool: { name: 'appliance-admin', version: VERSION },
    filters: { since: facts.since, until: facts.madeAt },
    audit: { entries: facts.audit_entries, checkpoint_seq: facts.checkpoint_seq },
    files,
  });
}
