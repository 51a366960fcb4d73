import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  keyFingerprint,
  parseCheckpointFile,
  readPublicKey,
  showFingerprint,
  type Checkpoint,
} from '../audit-verify/checkpoint.js';
import { exportScope } from '../audit-verify/export-scope.js';
import { readTrail } from '../audit-verify/read-trail.js';
import { servedKeys, signedCheckpoints } from '../audit-verify/served-checkpoints.js';
import { verifyTrail, type VerifyOptions, type VerifyReport } from '../audit-verify/verify-trail.js';
import { headerOf } from '../client/api-client.js';
import { exportTypeProblem } from '../client/download.js';
import { TransportError } from '../client/errors.js';
import { ApplianceStream } from './appliance-stream.js';
import { reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, CONNECTION_USAGE, resolveConnection } from './connection.js';
import { printErr, printOut } from './print.js';
import { thousands } from '../text/thousands.js';
import { UsageError } from './usage-error.js';

export const AUDIT_VERIFY_USAGE = `Usage: appliance-admin audit verify FILE [--key PEM_FILE] [--checkpoint FILE]
                                                [--since KEPT_FILE]
       appliance-admin audit verify --url URL [--token-file FILE] [--key PEM_FILE] [--since KEPT_FILE]
       appliance-admin audit fingerprint PEM_FILE   (the key's fingerprint, as the deployment screen shows it)

Proves an audit export complete and unaltered (docs/audit-chain.md): every entry's hash
recomputes, seq runs without gaps, each entry links to the one before, and the appliance's
signed checkpoint verifies and is the file's last entry. CSV or JSON Lines, told apart by content.
With --url, verifies the appliance's live trail instead: streams its export as it verifies, and
checks every checkpoint it signed before.
  --key PEM_FILE     the appliance's public key (Ed25519, PEM), as shown by fingerprint on its
                     deployment screen; required offline, pinned rather than asked for live
  --checkpoint FILE  the export's signed checkpoint (default FILE.checkpoint.json, written by export)
  --since KEPT_FILE  a checkpoint kept from an earlier walkthrough: the trail must still hold it
                     unchanged and extend it
${CONNECTION_USAGE}

Exit status: 0 every check held, 1 a finding (one line each) or the appliance could not be read,
2 bad usage.`;

export async function auditCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    console.log(AUDIT_VERIFY_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'fingerprint') return printFingerprint(rest);
  if (sub !== 'verify') throw new UsageError(`audit what? (audit verify)\n${AUDIT_VERIFY_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      ...CONNECTION_OPTIONS,
      key: { type: 'string' },
      checkpoint: { type: 'string' },
      since: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(AUDIT_VERIFY_USAGE);
    return 0;
  }
  const pem = values.key === undefined ? undefined : readKeyFile(values.key);
  const since = values.since === undefined ? undefined : readCheckpointFile(values.since, '--since').checkpoint;
  if (values.url !== undefined) {
    if (positionals.length || values.checkpoint !== undefined)
      throw new UsageError(`--url verifies the live trail: give no FILE and no --checkpoint\n${AUDIT_VERIFY_USAGE}`);
    return verifyLive(values, env, { publicKeyPem: pem, since });
  }
  if (positionals.length !== 1) throw new UsageError(`name one export FILE, or --url URL\n${AUDIT_VERIFY_USAGE}`);
  return verifyFile(positionals[0], { checkpointFile: values.checkpoint, publicKeyPem: pem, since });
}

/** Verifies an export on disk; prints the findings or what was proven. */
export async function verifyFile(
  file: string,
  o: { checkpointFile?: string; publicKeyPem?: string; since?: Checkpoint },
): Promise<number> {
  if (!existsSync(file)) throw new UsageError(`cannot read ${file}`);
  const cpFile = o.checkpointFile ?? `${file}.checkpoint.json`;
  const cp =
    o.checkpointFile !== undefined || existsSync(cpFile) ? readCheckpointFile(cpFile, 'the checkpoint') : undefined;
  const report = await verifyTrail(
    readTrail(createReadStream(file, { highWaterMark: 1 << 20 })),
    withProgress({
      checkpoint: cp?.checkpoint,
      scope: exportScope(cp?.filtered, cp?.filters),
      publicKeyPem: o.publicKeyPem,
      since: o.since,
    }),
  );
  return printReport(report, cp?.checkpoint, o.publicKeyPem);
}

async function verifyLive(
  values: Parameters<typeof resolveConnection>[0],
  env: NodeJS.ProcessEnv,
  o: { publicKeyPem?: string; since?: Checkpoint },
): Promise<number> {
  const connection = resolveConnection(values, env, AUDIT_VERIFY_USAGE);
  const appliance = new ApplianceStream(connection);
  try {
    const { checkpoints, keys } = await servedCheckpoints(appliance);
    const res = await appliance.get('exportAudit', { format: 'jsonl' });
    const wrongType = exportTypeProblem('jsonl', headerOf(res.headers, 'content-type'));
    if (wrongType) {
      res.body.destroy();
      throw new TransportError('protocol', `the answer is not an audit export: ${wrongType}`);
    }
    const header = headerOf(res.headers, 'audit-checkpoint');
    let head: Checkpoint | undefined;
    if (header) {
      const parsed = parseCheckpointFile(header);
      if (typeof parsed === 'string') printOut(`the Audit-Checkpoint header is unusable: ${parsed}`);
      else head = parsed.checkpoint;
    }
    const notes: string[] = [];
    let pem = o.publicKeyPem;
    if (!pem && head) {
      pem = keys.get(head.key_fingerprint);
      notes.push(
        pem
          ? `the key was not pinned: the checkpoint was checked with the key the appliance serves, ` +
              `${showFingerprint(head.key_fingerprint)}; compare it with the fingerprint you hold, or give --key`
          : `the appliance serves no public key ${showFingerprint(head.key_fingerprint)} for its checkpoint`,
      );
    }
    const { signed, findings: badSignatures } = signedCheckpoints(checkpoints, keys, o.publicKeyPem);
    const report = await verifyTrail(
      readTrail(res.body),
      withProgress({
        checkpoint: head,
        scope: exportScope(headerOf(res.headers, 'audit-export-filtered') === 'true'),
        publicKeyPem: pem,
        since: o.since,
        signed,
      }),
    );
    report.findings.push(...badSignatures);
    report.ok = report.findings.length === 0;
    report.notes.push(...notes);
    return printReport(report, head, pem);
  } catch (err) {
    clearProgress();
    return reportClientError(err, 'audit verify', connection.credential);
  } finally {
    await appliance.close();
  }
}

/** Every checkpoint the appliance lists (newest first, paged, as served) and its public keys by fingerprint. */
async function servedCheckpoints(a: ApplianceStream): Promise<{ checkpoints: unknown[]; keys: Map<string, string> }> {
  const checkpoints: unknown[] = [];
  const publicKeys: unknown[] = [];
  let after: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const body = (await a.json('/audit/checkpoints', { limit: 500, after })) as Record<string, unknown>;
    const items = body?.data as unknown;
    if (!Array.isArray(items)) throw new TransportError('protocol', 'the checkpoint list has no data');
    checkpoints.push(...items);
    if (Array.isArray(body.public_keys)) publicKeys.push(...body.public_keys);
    if (typeof body.next_cursor !== 'string' || body.has_more === false) break;
    after = body.next_cursor;
  }
  return { checkpoints, keys: servedKeys(publicKeys) };
}

/** `audit fingerprint PEM_FILE`: to compare a key obtained out of band with the deployment screen's. */
function printFingerprint(args: string[]): number {
  if (args.length !== 1) throw new UsageError('usage: appliance-admin audit fingerprint PEM_FILE');
  const fingerprint = keyOf(readKeyFile(args[0]))!;
  printOut(`${showFingerprint(fingerprint)}  (${fingerprint})`);
  return 0;
}

function keyOf(pem: string): string | undefined {
  const k = readPublicKey(pem);
  return typeof k === 'string' ? undefined : keyFingerprint(k);
}

function readKeyFile(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read the key file ${file}`);
  }
  const key = readPublicKey(pem);
  if (typeof key === 'string') throw new UsageError(`the key file ${file} is ${key}`);
  return pem;
}

function readCheckpointFile(file: string, what: string): Exclude<ReturnType<typeof parseCheckpointFile>, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${what} file ${file}`);
  }
  const parsed = parseCheckpointFile(text);
  if (typeof parsed === 'string') throw new UsageError(`${what} file ${file} is not a checkpoint: ${parsed}`);
  return parsed;
}

const showProgress = () => Boolean(process.stderr.isTTY);
const clearProgress = () => showProgress() && process.stderr.write('\r\x1b[K');

function withProgress(o: VerifyOptions): VerifyOptions {
  if (!showProgress()) return o;
  return {
    ...o,
    onProgress: (n) => process.stderr.write(`\r\x1b[Kverifying… ${thousands(n)} entries`),
  };
}

/** One line per finding (exit 1), or what was proven (exit 0); notes either way. */
export function printReport(r: VerifyReport, cp: Checkpoint | undefined, pem: string | undefined): number {
  clearProgress();
  for (const f of r.findings) printOut(f);
  if (r.ok) {
    const range =
      r.firstSeq === null
        ? 'no entries'
        : `entries #${thousands(r.firstSeq)}–#${thousands(r.lastSeq ?? r.firstSeq)} (${thousands(r.entries)})`;
    const key = pem ? keyOf(pem) : undefined;
    const signed =
      cp && key ? `; checkpoint #${thousands(cp.seq)} of ${cp.at} signed by key ${showFingerprint(key)}` : '';
    printOut(
      r.notes.some((n) => n.startsWith('filtered export'))
        ? `verified: ${range}${signed}`
        : `verified: ${range} complete and unaltered${signed}`,
    );
  }
  for (const n of r.notes) printOut(n);
  if (!r.ok)
    printErr(`appliance-admin: audit verify: ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}`);
  return r.ok ? 0 : 1;
}
