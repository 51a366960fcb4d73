import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { keysByFingerprint } from '../audit-chain/checkpoint.js';
import { readTrail, type TrailFormat } from '../audit-chain/read-trail.js';
import { parseStatementFile } from '../audit-chain/statement.js';
import { EXIT_STATUS, VERDICT_WORDS, worse, type Verdict } from '../audit-chain/verdict.js';
import { verifyTrail, type Trust } from '../audit-chain/verify-trail.js';
import { thousands } from '../text/thousands.js';
import { pinnedTrust } from './audit-verify.js';
import { printErr, printOut } from './print.js';
import { UsageError } from './usage-error.js';

/** The pack's audit exports, each verified against the statement beside it. Both must be there. */
const EXPORTS = ['audit.jsonl', 'audit.csv'] as const;

/** `evidence verify DIR [--key PEM_FILE]`: the manifest, then the audit chain of both exports. */
export async function evidenceVerifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { key: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('usage: appliance-admin evidence verify DIR [--key PEM_FILE]');
  const dir = positionals[0];
  const manifestFile = join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new UsageError(`${dir} holds no manifest.json: not an evidence pack`);
  const pinned = values.key === undefined ? undefined : pinnedTrust(values.key);
  const findings: string[] = [];
  const unknowns: string[] = [];
  const notes: string[] = [];
  const listed = await manifestFindings(dir, manifestFile, findings);
  const trust: Trust = pinned ?? {
    keys: packKeys(dir),
    pinned: false,
    source: "the pack's own public-keys.json",
  };
  let verdict: Verdict = pinned ? 'verified' : 'verified-unpinned';
  for (const file of EXPORTS) {
    if (!listed.has(file) || !existsSync(join(dir, file))) {
      findings.push(`${file} is not in the pack: it cannot be proven complete`);
      continue;
    }
    const sFile = join(dir, `${file}.checkpoint.json`);
    const parsed = existsSync(sFile) ? parseStatementFile(readFileSync(sFile, 'utf8')) : 'missing';
    if (typeof parsed === 'string') findings.push(`${file}.checkpoint.json: ${parsed}`);
    const format: { value?: TrailFormat } = {};
    const r = await verifyTrail(readTrail(createReadStream(join(dir, file), { highWaterMark: 1 << 20 }), format), {
      statement: typeof parsed === 'string' ? null : parsed.statement,
      checkpoint: typeof parsed === 'string' ? null : parsed.checkpoint,
      trust,
      format,
    });
    verdict = worse(verdict, r.verdict);
    findings.push(...r.findings.map((f) => `${file}: ${f}`));
    unknowns.push(...r.unknowns.map((u) => `${file}: ${u}`));
    if (r.proven) notes.push(`${file}: ${VERDICT_WORDS[r.verdict]}: ${r.proven}`);
    notes.push(...r.notes.map((n) => `${file}: ${n}`));
  }
  if (findings.length) verdict = 'broken';
  for (const f of findings) printOut(f);
  for (const u of unknowns) printOut(`could not check: ${u}`);
  if (verdict === 'verified' || verdict === 'verified-unpinned')
    printOut(`evidence pack ${dir}: every file matches its manifest and the audit chain verifies`);
  for (const n of notes) printOut(n);
  if (verdict === 'verified-unpinned')
    printOut(
      "the key was not pinned: the pack's own public-keys.json was used; compare its fingerprint with the one the " +
        'appliance shows (audit fingerprint KEY.pem), then give --key KEY.pem',
    );
  if (verdict !== 'verified')
    printErr(
      `appliance-admin: evidence verify: ${VERDICT_WORDS[verdict]}` +
        (findings.length ? ` (${thousands(findings.length)} finding${findings.length === 1 ? '' : 's'})` : ''),
    );
  return EXIT_STATUS[verdict];
}

/** Checks every listed file's size and sha256, and that nothing unlisted was added; the listed names. */
async function manifestFindings(dir: string, manifestFile: string, findings: string[]): Promise<Set<string>> {
  let files: { name?: unknown; sha256?: unknown; bytes?: unknown }[] = [];
  try {
    const m = JSON.parse(readFileSync(manifestFile, 'utf8')) as { files?: unknown };
    if (Array.isArray(m.files)) files = m.files;
    else findings.push('manifest.json lists no files');
  } catch {
    findings.push('manifest.json is not JSON');
  }
  const listed = new Set<string>();
  for (const f of files) {
    const name = String(f.name);
    // a name that leaves the pack (../x, /etc/passwd, .) is not a file of the pack
    if (!/^[A-Za-z0-9][\w.-]*$/.test(name)) {
      findings.push(`manifest.json names a file outside the pack: ${name}`);
      continue;
    }
    listed.add(name);
    const path = join(dir, name);
    const st = lstatOrNull(path);
    if (!st) {
      findings.push(`${name} is missing`);
      continue;
    }
    if (!st.isFile()) {
      findings.push(`${name} is not a regular file (a link, a directory or a device is not evidence)`);
      continue;
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    if (hash.digest('hex') !== f.sha256 || st.size !== f.bytes)
      findings.push(`${name} does not match the manifest (changed after the pack was made)`);
  }
  for (const name of readdirSync(dir))
    if (name !== 'manifest.json' && !listed.has(name)) findings.push(`${name} is not in the manifest (added later)`);
  return listed;
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** The pack's public-keys.json by their own (computed, not claimed) fingerprint. */
function packKeys(dir: string): Trust['keys'] {
  try {
    const list = JSON.parse(readFileSync(join(dir, 'public-keys.json'), 'utf8')) as unknown;
    return keysByFingerprint(Array.isArray(list) ? list : []);
  } catch {
    return new Map();
  }
}
