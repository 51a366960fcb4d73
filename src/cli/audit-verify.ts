import {
  closeSync,
  createReadStream,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { parseArgs } from 'node:util';
import { keyFingerprint, readPublicKey, type Checkpoint } from '../audit-chain/checkpoint.js';
import { LiveRefusal, verifyLive } from '../audit-chain/live.js';
import { readTrail, type SyslogCopyInfo, type TrailFormat } from '../audit-chain/read-trail.js';
import { checkpointsOfCopy, type CopyCheckpoints } from '../audit-chain/syslog-checkpoints.js';
import { looksLikeSyslog } from '../audit-chain/syslog-copy.js';
import { parseStatementFile } from '../audit-chain/statement.js';
import { EXIT_STATUS, VERDICT_WORDS } from '../audit-chain/verdict.js';
import { verdictOf, verifyTrail, type Trust, type VerifyReport } from '../audit-chain/verify-trail.js';
import type { WitnessKey } from '../audit-chain/witness-check.js';
import { headerOf } from '../client/response-body.js';
import { exportTypeProblem } from '../client/download.js';
import { ApiError, TransportError } from '../client/errors.js';
import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { ApplianceStream } from './appliance-stream.js';
import { ApplianceTree, TreeRefusal } from './appliance-tree.js';
import { readWitnessFile } from './witness-key-file.js';
import { keptOfText, liveTreeChecks, verifySinceByConsistency } from './audit-verify-tree.js';
import { CheckpointState } from './checkpoint-state.js';
import { reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { pinnedTrust } from './pinned-trust.js';
import { printErr, printOut } from './print.js';
import { UsageError } from '../config/usage-error.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const AUDIT_VERIFY_USAGE = helpText(commandAt(['audit', 'verify']));

export async function auditCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || sub === undefined) {
    console.log(AUDIT_VERIFY_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'fingerprint') return printFingerprints(rest);
  if (sub === 'key') return fetchKeys(rest, env);
  if (sub === 'prove' || sub === 'sample' || sub === 'verify-proof')
    return (await import('./audit-proof.js')).auditProofCommand(sub, rest, env);
  if (sub === 'witness' || sub === 'witness-key')
    return (await import('./audit-witness.js')).auditWitnessCommand(sub, rest, env);
  if (sub !== 'verify') throw new UsageError(`audit what? (audit verify)\n${AUDIT_VERIFY_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      ...CONNECTION_OPTIONS,
      key: { type: 'string' },
      checkpoint: { type: 'string' },
      since: { type: 'string' },
      witness: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(AUDIT_VERIFY_USAGE);
    return 0;
  }
  const pinned = values.key === undefined ? undefined : pinnedTrust(values.key);
  const kept = values.since === undefined ? undefined : readKept(values.since);
  const witnesses = (values.witness ?? []).map(readWitnessFile);
  if (values.url !== undefined) {
    if (positionals.length || values.checkpoint !== undefined)
      throw new UsageError(`--url verifies the live trail: give no FILE and no --checkpoint\n${AUDIT_VERIFY_USAGE}`);
    return verifyUrl(values, env, { pinned, kept, witnesses });
  }
  if (witnesses.length)
    throw new UsageError(`--witness checks the live appliance's checkpoint: give --url\n${AUDIT_VERIFY_USAGE}`);
  if (positionals.length !== 1) throw new UsageError(`name one export FILE, or --url URL\n${AUDIT_VERIFY_USAGE}`);
  return verifyFile(positionals[0], { statementFile: values.checkpoint, pinned, since: kept?.checkpoint });
}

/** Verifies an export on disk against its statement file; prints the verdict. */
async function verifyFile(
  file: string,
  o: { statementFile?: string; pinned?: Trust; since?: Checkpoint },
): Promise<number> {
  // the files to check: one that cannot be read is "could not check" (3), one that is not a statement a finding (1)
  const unreadable = fileProblem(file, 'the export');
  if (unreadable) {
    printOut(`could not check: ${unreadable}`);
    return finish('cannot-check', EXIT_STATUS['cannot-check']);
  }
  const sFile = o.statementFile ?? `${file}.checkpoint.json`;
  const read = o.statementFile !== undefined || existsSync(sFile) ? readStatementFile(sFile) : null;
  if (read && 'unreadable' in read) {
    printOut(`could not check: ${read.unreadable}`);
    return finish('cannot-check', EXIT_STATUS['cannot-check']);
  }
  const signed = read && 'problem' in read ? null : read;
  const trust = o.pinned ?? { keys: new Map(), pinned: false, source: 'no key' };
  // a syslog copy (docs/operations.md) has no statement of its own: the newest checkpoint it carries
  // (or the one given) proves it up to its seq, and what the copy holds after it is counted, not checked
  const copy = isSyslogCopy(file);
  const carried =
    copy && !read ? await checkpointsOfCopy(createReadStream(file, { highWaterMark: 1 << 20 }), trust) : null;
  const checkpoint = signed?.checkpoint ?? carried?.newest ?? undefined;
  const format: { value?: TrailFormat; syslog?: SyslogCopyInfo; upTo?: number } = {};
  if (copy) format.upTo = checkpoint?.seq ?? 0;
  const report = await verifyTrail(readTrail(createReadStream(file, { highWaterMark: 1 << 20 }), format), {
    statement: copy ? null : signed?.statement,
    checkpoint,
    trust,
    since: o.since,
    // the copy's older checkpoints: each must be its entry (another hash is a history signed twice)
    ...(carried ? { signed: carried.signed } : {}),
    format: format,
    onProgress: progress,
  });
  if (read && 'problem' in read) {
    report.findings.unshift(read.problem);
    report.verdict = 'broken';
    report.proven = null;
  }
  if (carried?.findings.length) {
    report.findings.unshift(...carried.findings);
    report.verdict = 'broken';
    report.proven = null;
  }
  if (copy) copyNotes(report, format.syslog, checkpoint ?? null, carried);
  return printReport(report);
}

/** Whether the file starts as a syslog receiver writes the forwarded trail (an RFC 5424 line). */
function isSyslogCopy(file: string): boolean {
  const head = Buffer.alloc(8);
  const fd = openSync(file, 'r');
  try {
    return looksLikeSyslog(head.subarray(0, readSync(fd, head, 0, 8, 0)));
  } finally {
    closeSync(fd);
  }
}

/**
 * What a syslog copy's reading adds to the verdict: which checkpoint proved it (`carried`: read from
 * the copy itself), how to give it one when it carries none, and what was set aside.
 */
function copyNotes(
  report: VerifyReport,
  info: SyslogCopyInfo | undefined,
  cp: Checkpoint | null,
  carried: CopyCheckpoints | null,
): void {
  if (!cp) {
    const none =
      carried && carried.untrusted
        ? `the ${thousands(carried.untrusted)} checkpoint${carried.untrusted === 1 ? '' : 's'} this syslog copy ` +
          `carries ${carried.untrusted === 1 ? 'is' : 'are'} signed by another key than the one given (--key)`
        : carried
          ? 'this syslog copy carries no signed checkpoint (forwarded by an older version, or cut before the first one)'
          : 'a syslog copy carries no signed statement';
    report.findings = report.findings.map((f) =>
      f.startsWith('no signed statement')
        ? `${none}: give a checkpoint the appliance signed with --checkpoint FILE (a line of ` +
          "GET /v1/admin/audit/checkpoints, or an export's FILE.checkpoint.json) to prove it up to it"
        : f,
    );
    return;
  }
  if (carried?.newest === cp && !report.findings.length)
    report.notes.push(
      `proven by the newest signed checkpoint the copy carries, #${thousands(cp.seq)} of ${cp.at} (each of the ` +
        `${thousands(carried.signed.length)} it carries verified with the key and matched its entry)`,
    );
  if (!info) return;
  const entries = (k: number) => `${thousands(k)} ${k === 1 ? 'entry was' : 'entries were'}`;
  if (info.repeats) report.notes.push(`${entries(info.repeats)} sent again (the same seq and hash): each counted once`);
  if (info.beyond)
    report.notes.push(
      `${thousands(info.beyond)} ${info.beyond === 1 ? 'entry' : 'entries'} after the checkpoint's ` +
        `#${thousands(cp.seq)} ${info.beyond === 1 ? 'is' : 'are'} not covered by it: verify again with a newer checkpoint`,
    );
  if (info.foreign)
    report.notes.push(`${thousands(info.foreign)} ${info.foreign === 1 ? 'line' : 'lines'} of other senders skipped`);
}

async function verifyUrl(
  values: Parameters<typeof resolveConnection>[0],
  env: NodeJS.ProcessEnv,
  o: { pinned?: Trust; kept?: ReturnType<typeof readKept>; witnesses: WitnessKey[] },
): Promise<number> {
  const connection = resolveConnection(values, env, AUDIT_VERIFY_USAGE);
  const appliance = new ApplianceStream(connection);
  const state = new CheckpointState(env);
  const tree = new ApplianceTree(appliance);
  try {
    if (o.kept?.tree) {
      const r = await verifySinceByConsistency(tree, o.kept.tree, o.pinned, o.witnesses, state);
      return printReport({ ...r, entries: 0, firstSeq: null, lastSeq: null, claim: null, keyFingerprint: null });
    }
    let listed: unknown;
    const report = await verifyLive(
      {
        newestCheckpoint: async (signal) =>
          (listed = await appliance.json('listAuditCheckpoints', { limit: 1 }, signal)),
        exportJsonl: async (signal) => {
          const res = await appliance.get('exportAudit', { format: 'jsonl' }, signal);
          const wrongType = exportTypeProblem('jsonl', headerOf(res.headers, 'content-type'));
          if (wrongType) {
            res.body.destroy();
            throw new TransportError('protocol', `the answer is not an audit export: ${wrongType}`);
          }
          return { header: (name) => headerOf(res.headers, name), body: res.body };
        },
      },
      { pinned: o.pinned, since: o.kept?.checkpoint, onProgress: progress },
    );
    if (report.verdict !== 'cannot-check') {
      const t = await liveTreeChecks(tree, o.pinned, o.witnesses, state, listed);
      report.findings.push(...t.findings);
      report.unknowns.push(...t.unknowns);
      report.notes.push(...t.notes);
      report.verdict = verdictOf(report.findings, report.unknowns, o.pinned !== undefined);
      if (report.verdict !== 'verified' && report.verdict !== 'verified-unpinned') report.proven = null;
    }
    return printReport(report);
  } catch (err) {
    clearProgress();
    if (err instanceof LiveRefusal || err instanceof TreeRefusal) {
      printOut(
        err instanceof TreeRefusal && err.verdict === 'cannot-check' ? `could not check: ${err.message}` : err.message,
      );
      return finish(err.verdict, EXIT_STATUS[err.verdict]);
    }
    if (err instanceof ApiError || err instanceof TransportError) {
      reportClientError(err, 'audit verify', connection.credential);
      return EXIT_STATUS['cannot-check'];
    }
    throw err;
  } finally {
    await appliance.close();
  }
}

/**
 * `audit key --url URL -o FILE`: the appliance's public keys (the current one first, then those a
 * rotation retired), written as PEM for --key, and their fingerprints to compare out of band. The
 * keys come from the appliance itself: only that comparison makes them a pin.
 */
async function fetchKeys(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...CONNECTION_OPTIONS, output: { type: 'string', short: 'o' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length || !values.output)
    throw new UsageError(`usage: appliance-admin audit key --url URL -o PEM_FILE\n${AUDIT_VERIFY_USAGE}`);
  if (existsSync(values.output)) throw new UsageError(`${values.output} exists; choose another file`);
  const connection = resolveConnection(values, env, AUDIT_VERIFY_USAGE);
  const appliance = new ApplianceStream(connection);
  try {
    const body = (await appliance.json('/audit/checkpoints', { limit: 1 })) as { public_keys?: unknown } | null;
    const served = Array.isArray(body?.public_keys) ? body.public_keys.slice(0, 100) : [];
    const keys = served.flatMap((k) => {
      const r = k as { public_key_pem?: unknown; retired_at?: unknown };
      const key = typeof r.public_key_pem === 'string' ? readPublicKey(r.public_key_pem) : 'none';
      return typeof key === 'string' ? [] : [{ key, retired: typeof r.retired_at === 'string' }];
    });
    if (!keys.length) {
      printErr('appliance-admin: audit key: the appliance serves no Ed25519 public key');
      return EXIT_STATUS['cannot-check'];
    }
    const pem = keys.map(({ key }) => key.export({ type: 'spki', format: 'pem' }).toString()).join('');
    writeFileSync(values.output, pem, { mode: 0o644, flag: 'wx' });
    printOut(`wrote ${keys.length} key${keys.length === 1 ? '' : 's'} to ${values.output}:`);
    for (const { key, retired } of keys) {
      const f = keyFingerprint(key);
      printOut(`  ${displayFingerprint(f)}  ${retired ? 'retired' : 'current'}  (${f})`);
    }
    printOut(
      "compare the current key's fingerprint with the one the appliance's operator gave you (its deployment " +
        `screen shows it); only then does --key ${values.output} prove anything`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ApiError || err instanceof TransportError) {
      reportClientError(err, 'audit key', connection.credential);
      return EXIT_STATUS['cannot-check'];
    }
    throw err;
  } finally {
    await appliance.close();
  }
}

/** `audit fingerprint PEM_FILE`: to compare a key obtained out of band with the deployment screen's. */
function printFingerprints(args: string[]): number {
  if (args.length !== 1) throw new UsageError('usage: appliance-admin audit fingerprint PEM_FILE');
  for (const f of pinnedTrust(args[0]).keys.keys()) printOut(`${displayFingerprint(f)}  (${f})`);
  return 0;
}

function readSmallFile(file: string, what: string, max: number): string {
  regularFile(file, what);
  if (statSync(file).size > max) throw new UsageError(`${what} ${file} is larger than ${max} bytes`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`cannot read ${what} ${file}`);
  }
}

/** A regular file (not a FIFO, a device or a directory, which would hang or mislead a reader). */
function regularFile(file: string, what: string): void {
  const problem = fileProblem(file, what);
  if (problem) throw new UsageError(problem);
}

/** Why `file` cannot be read as a regular file, or null. */
function fileProblem(file: string, what: string): string | null {
  let st;
  try {
    st = statSync(file);
  } catch {
    return `cannot read ${what} ${file}`;
  }
  return st.isFile() ? null : `${what} ${file} is not a regular file`;
}

type StatementFile = Exclude<ReturnType<typeof parseStatementFile>, string>;

/** The statement file; `unreadable` when it cannot be read, `problem` (a finding) when it holds no statement. */
function readStatementFile(file: string): StatementFile | { problem: string } | { unreadable: string } {
  const unreadable = fileProblem(file, 'the statement file');
  if (unreadable) return { unreadable };
  if (statSync(file).size > 1024 * 1024) return { problem: `the statement file ${file} is larger than 1 MiB` };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { unreadable: `cannot read the statement file ${file}` };
  }
  const parsed = parseStatementFile(text);
  return typeof parsed === 'string' ? { problem: `the statement file ${file} is unusable: ${parsed}` } : parsed;
}

/** The kept checkpoint of --since: from a statement file, a proof file, a remembered or served checkpoint. */
function readKept(file: string): Exclude<ReturnType<typeof keptOfText>, string> {
  const kept = keptOfText(readSmallFile(file, 'the --since file', 64 * 1024 * 1024));
  if (typeof kept === 'string') throw new UsageError(`the --since file ${file} holds no checkpoint: ${kept}`);
  return kept;
}

const showProgress = () => Boolean(process.stderr.isTTY);
const clearProgress = () => showProgress() && process.stderr.write('\r\x1b[K');
const progress = (done: number, total?: number | null) => {
  if (showProgress())
    process.stderr.write(`\r\x1b[Kverifying… ${thousands(done)}${total ? ` of ${thousands(total)}` : ''} entries`);
};

/**
 * The verdict: one line per finding and per thing that could not be checked, what was proven, the
 * notes; on stderr the verdict's words when it is not "verified"; the exit status of the table.
 */
export function printReport(r: VerifyReport): number {
  clearProgress();
  for (const f of r.findings) printOut(f);
  for (const u of r.unknowns) printOut(`could not check: ${u}`);
  if (r.proven) printOut(`${VERDICT_WORDS[r.verdict]}: ${r.proven}`);
  for (const n of r.notes) printOut(n);
  if (r.verdict === 'verified-unpinned')
    printOut(
      'the key was not pinned: fetch it with audit key --url URL -o appliance.pem, compare its fingerprint with ' +
        'the one you were given out of band, then verify with --key appliance.pem',
    );
  const counted = r.findings.length
    ? `${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}`
    : r.unknowns.length
      ? `${r.unknowns.length} thing${r.unknowns.length === 1 ? '' : 's'} could not be checked`
      : '';
  return finish(r.verdict, EXIT_STATUS[r.verdict], counted);
}

function finish(verdict: keyof typeof EXIT_STATUS, code: number, detail = ''): number {
  if (verdict !== 'verified')
    printErr(`appliance-admin: audit verify: ${VERDICT_WORDS[verdict]}${detail ? ` (${detail})` : ''}`);
  return code;
}
