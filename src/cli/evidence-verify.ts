import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
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
import { verifyTrail, type VerifyReport } from '../audit-verify/verify-trail.js';
import { printErr, printOut } from './print.js';
import { thousands } from '../text/thousands.js';
import { UsageError } from './usage-error.js';

/** Each export and the names of its checkpoint, the first present used (older packs: audit.checkpoint.json). */
const CHAINED = [
  ['audit.jsonl', ['audit.jsonl.checkpoint.json', 'audit.checkpoint.json']],
  ['audit.csv', ['audit.csv.checkpoint.json']],
] as const;

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
  let pinned: string | undefined;
  if (values.key !== undefined) {
    try {
      pinned = readFileSync(values.key, 'utf8');
    } catch {
      throw new UsageError(`cannot read the key file ${values.key}`);
    }
    if (typeof readPublicKey(pinned) === 'string')
      throw new UsageError(`the key file ${values.key} is not an Ed25519 PEM key`);
  }
  const findings: string[] = [];
  const notes: string[] = [];
  const listed = await manifestFindings(dir, manifestFile, findings);
  const packKeys = packPublicKeys(dir);
  for (const [file, cpFiles] of CHAINED) {
    if (!listed.has(file) || !existsSync(join(dir, file))) continue;
    const cpFile = cpFiles.find((f) => existsSync(join(dir, f))) ?? cpFiles[0];
    const parsed = existsSync(join(dir, cpFile))
      ? parseCheckpointFile(readFileSync(join(dir, cpFile), 'utf8'))
      : undefined;
    if (typeof parsed === 'string') findings.push(`${cpFile}: not a checkpoint (${parsed})`);
    const cp: Checkpoint | undefined = parsed && typeof parsed !== 'string' ? parsed.checkpoint : undefined;
    let pem = pinned;
    if (!pem && cp) {
      pem = packKeys.get(cp.key_fingerprint);
      if (pem && !notes.some((n) => n.includes('not pinned')))
        notes.push(
          `the key was not pinned: the pack's own public-keys.json (${showFingerprint(cp.key_fingerprint)}) ` +
            'was used; compare it with the fingerprint the appliance shows, or give --key',
        );
    }
    const r: VerifyReport = await verifyTrail(
      readTrail(createReadStream(join(dir, file), { highWaterMark: 1 << 20 })),
      {
        checkpoint: cp,
        publicKeyPem: pem,
        scope: typeof parsed === 'object' ? exportScope(parsed.filtered, parsed.filters) : undefined,
      },
    );
    findings.push(...r.findings.map((f) => `${file}: ${f}`));
    if (r.ok)
      notes.push(
        r.firstSeq === null
          ? `${file}: no entries, verified`
          : `${file}: ${thousands(r.entries)} entries, ` +
              `#${thousands(r.firstSeq)}–#${thousands(r.lastSeq ?? r.firstSeq)}, verified`,
      );
    notes.push(...r.notes.map((n) => `${file}: ${n}`));
  }
  for (const f of findings) printOut(f);
  if (!findings.length) printOut(`evidence pack ${dir}: every file matches its manifest and the audit chain verifies`);
  for (const n of notes) printOut(n);
  if (findings.length)
    printErr(`appliance-admin: evidence verify: ${findings.length} finding${findings.length === 1 ? '' : 's'}`);
  return findings.length ? 1 : 0;
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
    // a name that leaves the pack (../x, /etc/passwd) is not a file of the pack
    if (!/^[\w.-]+$/.test(name) || name.startsWith('..')) {
      findings.push(`manifest.json names a file outside the pack: ${name}`);
      continue;
    }
    listed.add(name);
    const path = join(dir, name);
    if (!existsSync(path)) {
      findings.push(`${name} is missing`);
      continue;
    }
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
    if (hash.digest('hex') !== f.sha256 || statSync(path).size !== f.bytes)
      findings.push(`${name} does not match the manifest (changed after the pack was made)`);
  }
  for (const name of readdirSync(dir))
    if (name !== 'manifest.json' && !listed.has(name)) findings.push(`${name} is not in the manifest (added later)`);
  return listed;
}

/** The pack's public-keys.json as PEMs by their own (computed, not claimed) fingerprint. */
function packPublicKeys(dir: string): Map<string, string> {
  const keys = new Map<string, string>();
  try {
    const list = JSON.parse(readFileSync(join(dir, 'public-keys.json'), 'utf8')) as unknown;
    for (const k of Array.isArray(list) ? list : []) {
      const pem = (k as { public_key_pem?: unknown }).public_key_pem;
      const key = typeof pem === 'string' ? readPublicKey(pem) : 'none';
      if (typeof key !== 'string') keys.set(keyFingerprint(key), pem as string);
    }
  } catch {
    /* no usable keys: the chain check says the signature could not be checked */
  }
  return keys;
}
