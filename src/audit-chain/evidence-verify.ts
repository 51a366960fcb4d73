import { createHash } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import { open, opendir, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { sanitize } from '../text/sanitize.js';
import { thousands } from '../text/thousands.js';
import { displayFingerprint } from '../text/fingerprint.js';
import { HEX64, keysByFingerprint, type Checkpoint } from './checkpoint.js';
import {
  AUDIT_EXPORTS,
  checkSeal,
  exportByteCap,
  JOURNAL,
  KEY_INVENTORY,
  MANDATORY,
  MANIFEST,
  PACK_FILE_NAME,
  PACK_FORMAT,
  PACK_LIMITS,
  PUBLIC_KEYS,
  SEAL,
  sha256Hex,
  statementFileName,
  TREE_PROOF,
  WITNESSED,
  type SealEntry,
} from './evidence-pack.js';
import { parseProofFile, verifyProofFile } from './proof-file.js';
import { asTreeCheckpoint, verifyTreeCheckpoint, type SignedTree } from './tree-checkpoint.js';
import { compareTrees } from './tree-consistency.js';
import { checkKeyInventory } from './key-inventory-check.js';
import { readTrail, type TrailFormat } from './read-trail.js';
import { parseStatementFile, type SignedStatement } from './statement.js';
import { VERDICT_WORDS, worse, type Verdict } from './verdict.js';
import { verifyTrail, type Trust } from './verify-trail.js';

export interface PackReport {
  verdict: Verdict;
  /** what does not hold, one sentence each */
  findings: string[];
  /** what could not be checked */
  unknowns: string[];
  /** what was proven and what the pack cannot tell */
  notes: string[];
  /** the seal, when it verified */
  sealed: (SealEntry & { fingerprint: string }) | null;
}

interface ManifestRecord {
  name: string;
  sha256: string;
  bytes: number;
}

/**
 * Checks an evidence pack (docs/audit-chain.md, "Evidence packs"): the seal signs the manifest (its
 * checkpoint verifies with the trusted key, and signs an audit.seal entry of manifest.json's sha256);
 * the manifest lists the mandatory files and every file matches it, nothing unlisted is there; each
 * audit export verifies against its signed statement; the seal comes after both exports. Reads only
 * regular files, within bounds: a link, a FIFO, a device or a folder in the pack is a finding, never
 * followed, waited on or read. `pinned`: the key given out of band; else the pack's own keys are used
 * and the verdict is at best verified-unpinned.
 */
export async function verifyPack(dir: string, o: { pinned?: Trust } = {}): Promise<PackReport> {
  const findings: string[] = [];
  const unknowns: string[] = [];
  const notes: string[] = [];
  // the pack's verdict is never better than an export's own
  let trails: Verdict = 'verified';
  const done = (sealed: PackReport['sealed'] = null): PackReport => ({
    verdict: worse(
      trails,
      findings.length ? 'broken' : unknowns.length ? 'cannot-check' : o.pinned ? 'verified' : 'verified-unpinned',
    ),
    findings,
    unknowns,
    notes,
    sealed,
  });

  const present = await listFolder(dir);
  if (typeof present === 'string') {
    unknowns.push(`cannot read the folder ${dir}: ${present}`);
    return done();
  }
  if (present.size > PACK_LIMITS.files)
    findings.push(`the pack holds more than ${thousands(PACK_LIMITS.files)} entries; only those were looked at`);

  const manifestBytes = await readWhole(join(dir, MANIFEST), PACK_LIMITS.manifestBytes);
  if (!Buffer.isBuffer(manifestBytes)) {
    (manifestBytes.unknown ? unknowns : findings).push(
      `${MANIFEST} ${manifestBytes.problem}: nothing says what the pack holds`,
    );
    return done();
  }
  const manifest = parseManifest(manifestBytes, findings);
  const listed = new Map(manifest.files.map((f) => [f.name, f]));

  const trust = o.pinned ?? (await packTrust(dir));
  const sealed = await sealFindings(dir, manifestBytes, manifest.format, trust, findings, unknowns);

  for (const name of MANDATORY)
    if (!listed.has(name)) findings.push(`${name} is not in the manifest: without it the pack proves nothing complete`);

  const statements = new Map<string, { statement: SignedStatement | null; checkpoint: Checkpoint | null }>();
  for (const file of AUDIT_EXPORTS) {
    const sFile = statementFileName(file);
    if (!listed.has(sFile)) continue;
    const text = await readWhole(join(dir, sFile), PACK_LIMITS.statementBytes);
    if (!Buffer.isBuffer(text)) continue; // the file check below says why
    const parsed = parseStatementFile(text.toString('utf8'));
    if (typeof parsed === 'string') findings.push(`${sFile}: ${parsed}`);
    else statements.set(file, parsed);
  }

  const capOf = (name: string): number => {
    const s = statements.get(name)?.statement;
    if (s) return exportByteCap(s.statement.count);
    if (name === JOURNAL) return PACK_LIMITS.journalBytes;
    if (name === KEY_INVENTORY) return PACK_LIMITS.keyInventoryBytes;
    return PACK_LIMITS.fileBytes;
  };
  for (const f of manifest.files) await fileFindings(dir, f, capOf(f.name), findings, unknowns);
  if (listed.has(KEY_INVENTORY)) {
    const inventory = await checkKeyInventory(join(dir, KEY_INVENTORY));
    if (inventory.ok) notes.push(`${KEY_INVENTORY}: ${thousands(inventory.keys)} gateway keys, one a line`);
    else if (!('skipped' in inventory))
      (inventory.unknown ? unknowns : findings).push(`${KEY_INVENTORY} ${inventory.problem}`);
  }
  for (const [name, kind] of present)
    if (name !== MANIFEST && name !== SEAL && !listed.has(name))
      findings.push(
        `${shown(name)} is not in the manifest (${kind === 'file' ? 'added later' : `${kind}, added later`})`,
      );

  // each export must be the pack's range, as the sealed manifest states it: another export's statement
  // (a filter that selects nothing, say) would verify on its own and leave the range unproven
  const range = manifest.since === null ? null : JSON.stringify({ start_time: manifest.since });
  if (range === null) findings.push(`${MANIFEST} states no range (filters.since): the exports cannot be held to one`);
  for (const [file, signed] of statements) {
    const filters = signed.statement?.statement.filters;
    if (range !== null && filters && JSON.stringify(filters) !== range)
      findings.push(
        `${file}'s statement is for another export (filters ${JSON.stringify(filters)}), not the pack's range ` +
          `(since ${manifest.since})`,
      );
  }

  for (const file of AUDIT_EXPORTS) {
    if (!listed.has(file)) continue;
    const signed = statements.get(file);
    const r = await exportFindings(dir, file, signed, trust, capOf(file));
    if (r.verdict) trails = worse(trails, r.verdict);
    findings.push(...r.findings.map((f) => `${file}: ${f}`));
    unknowns.push(...r.unknowns.map((u) => `${file}: ${u}`));
    notes.push(...r.notes.map((n) => `${file}: ${n}`));
    const head = signed?.statement?.statement.head.seq ?? signed?.checkpoint?.seq;
    if (sealed && head !== undefined && sealed.seq < head)
      findings.push(
        `the seal (#${thousands(sealed.seq)}) comes before ${file}'s export (head #${thousands(head)}): it cannot ` +
          'vouch for it',
      );
  }
  if (listed.has(TREE_PROOF)) {
    const head = statements.get('audit.jsonl')?.statement?.statement.head ?? null;
    const tree = await treeProofFindings(dir, head, trust, findings, notes);
    if (tree && listed.has(WITNESSED)) await witnessedFindings(dir, tree, trust, findings, notes);
  }
  if (sealed)
    notes.push(
      `manifest.json is sealed by the appliance's audit entry #${thousands(sealed.seq)} of ${sealed.at}, made by ` +
        `${sealed.actor.subject} (${sealed.actor.role ?? 'no role'}), signed by key ${displayFingerprint(sealed.fingerprint)}` +
        (trust.pinned ? '' : ', not pinned'),
    );
  return done(sealed);
}

/**
 * TREE_PROOF: the export's head is in the appliance's signed tree (its inclusion proof verifies
 * against the checkpoint note), which ties the pack to later consistency proofs and to the
 * witnesses who cosigned that note (named here; checked with their keys by audit verify-proof).
 */
async function treeProofFindings(
  dir: string,
  head: { seq: number; hash: string } | null,
  trust: Trust,
  findings: string[],
  notes: string[],
): Promise<SignedTree | null> {
  const bytes = await readWhole(join(dir, TREE_PROOF), PACK_LIMITS.statementBytes);
  if (!Buffer.isBuffer(bytes)) return null; // the file check says why
  const parsed = parseProofFile(bytes.toString('utf8'));
  if (typeof parsed === 'string') {
    findings.push(`${TREE_PROOF}: ${parsed}`);
    return null;
  }
  const r = verifyProofFile(parsed, trust);
  findings.push(...r.findings.map((f) => `${TREE_PROOF}: ${f}`));
  const entry = parsed.entries[0]?.entry;
  if (parsed.entries.length !== 1 || !head || entry?.seq !== head.seq || entry.hash !== head.hash)
    findings.push(`${TREE_PROOF} does not prove audit.jsonl's signed head`);
  else if (r.tree)
    notes.push(
      `${TREE_PROOF}: the export's head #${thousands(head.seq)} is in the signed tree of size ` +
        `${thousands(r.tree.size)} (${r.tree.origin})${cosigners(r.tree)}`,
    );
  return r.verdict === 'broken' ? null : r.tree;
}

const cosigners = (t: SignedTree): string => {
  const names = t.note.signatures.filter((x) => x.name !== t.origin).map((x) => x.name);
  return names.length
    ? `, cosigned by ${names.join(', ')} (check with audit verify-proof --witness KEY.pub)`
    : ', cosigned by no witness';
};

/** WITNESSED: the newest checkpoint a witness cosigned, verified, and a consistency proof from it to the pack's tree. */
async function witnessedFindings(
  dir: string,
  tree: SignedTree,
  trust: Trust,
  findings: string[],
  notes: string[],
): Promise<void> {
  const bytes = await readWhole(join(dir, WITNESSED), PACK_LIMITS.statementBytes);
  if (!Buffer.isBuffer(bytes)) return;
  let v: { checkpoint?: unknown; consistency_proof?: { path?: unknown } } | null;
  try {
    v = JSON.parse(bytes.toString('utf8')) as typeof v;
  } catch {
    findings.push(`${WITNESSED} is not JSON`);
    return;
  }
  const c = asTreeCheckpoint(v?.checkpoint);
  if (typeof c === 'string') {
    findings.push(`${WITNESSED}: its checkpoint is unusable: ${c}`);
    return;
  }
  const checked = verifyTreeCheckpoint(c, trust, `${WITNESSED}'s checkpoint`);
  if (!checked.ok) {
    findings.push('finding' in checked ? checked.finding : checked.unknown);
    return;
  }
  const path = v?.consistency_proof?.path;
  const proof =
    Array.isArray(path) && path.length <= 128 && path.every((h) => typeof h === 'string' && HEX64.test(h))
      ? path.map((h: string) => Buffer.from(h, 'hex'))
      : null;
  const compared = compareTrees(checked.tree, tree, proof);
  if (compared.kind !== 'same' && compared.kind !== 'extends')
    findings.push(
      `${WITNESSED}: the pack's tree does not extend the witnessed checkpoint: ${compared.kind === 'fork' ? compared.why : 'it is older'}`,
    );
  else
    notes.push(
      `${WITNESSED}: the pack's tree extends the witnessed checkpoint of tree size ${thousands(checked.tree.size)}` +
        cosigners(checked.tree),
    );
}

/** The folder's entries by name, with what each is; a sentence when it cannot be read. */
async function listFolder(dir: string): Promise<Map<string, string> | string> {
  const out = new Map<string, string>();
  try {
    const d = await opendir(dir);
    for await (const e of d) {
      out.set(e.name, kindOf(e));
      // one past the bound, so the caller can tell
      if (out.size > PACK_LIMITS.files) break;
    }
    return out;
  } catch (err) {
    return errnoWords(err);
  }
}

const kindOf = (e: Dirent): string =>
  e.isFile()
    ? 'file'
    : e.isSymbolicLink()
      ? 'a symbolic link'
      : e.isDirectory()
        ? 'a folder'
        : e.isFIFO()
          ? 'a FIFO'
          : e.isSocket()
            ? 'a socket'
            : 'a device';

/** A name from the pack as it may be shown: a plain file name as it is, anything else quoted and made safe. */
const shown = (name: string): string => (PACK_FILE_NAME.test(name) ? name : JSON.stringify(sanitize(name, 80)));

function parseManifest(
  bytes: Buffer,
  findings: string[],
): { format: unknown; since: string | null; files: ManifestRecord[] } {
  let m: unknown;
  try {
    m = JSON.parse(bytes.toString('utf8'));
  } catch {
    findings.push(`${MANIFEST} is not JSON`);
    return { format: null, since: null, files: [] };
  }
  const obj = m !== null && typeof m === 'object' && !Array.isArray(m) ? (m as Record<string, unknown>) : {};
  const range = obj.filters !== null && typeof obj.filters === 'object' ? (obj.filters as Record<string, unknown>) : {};
  const since = typeof range.since === 'string' ? range.since : null;
  if (!Array.isArray(obj.files)) {
    findings.push(`${MANIFEST} lists no files`);
    return { format: obj.pack, since, files: [] };
  }
  if (obj.files.length > PACK_LIMITS.files)
    findings.push(`${MANIFEST} lists more than ${thousands(PACK_LIMITS.files)} files; only those were looked at`);
  const files: ManifestRecord[] = [];
  const seen = new Set<string>();
  for (const r of obj.files.slice(0, PACK_LIMITS.files) as unknown[]) {
    const f = (r !== null && typeof r === 'object' ? r : {}) as Record<string, unknown>;
    const name = typeof f.name === 'string' ? f.name : null;
    if (name === null) {
      findings.push(`${MANIFEST} lists a file without a name`);
      continue;
    }
    // `.`, `..`, a path, a hidden name: not a file of the pack, and never opened
    if (!PACK_FILE_NAME.test(name)) {
      findings.push(`${MANIFEST} names something that is not a plain file of the pack: ${shown(name)}`);
      continue;
    }
    if (name === MANIFEST || name === SEAL) {
      findings.push(`${MANIFEST} lists ${name}, which it cannot hold`);
      continue;
    }
    if (seen.has(name)) {
      findings.push(`${MANIFEST} lists ${name} twice`);
      continue;
    }
    seen.add(name);
    if (typeof f.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(f.sha256) || !Number.isSafeInteger(f.bytes)) {
      findings.push(`${MANIFEST}'s record of ${name} has no sha256 and size`);
      continue;
    }
    files.push({ name, sha256: f.sha256, bytes: f.bytes as number });
  }
  return { format: obj.pack, since, files };
}

/** The pack's own public-keys.json, by their computed fingerprints (unpinned). */
async function packTrust(dir: string): Promise<Trust> {
  const source = "the pack's own public-keys.json";
  const bytes = await readWhole(join(dir, PUBLIC_KEYS), PACK_LIMITS.keysBytes);
  if (!Buffer.isBuffer(bytes)) return { keys: new Map(), pinned: false, source };
  try {
    const list = JSON.parse(bytes.toString('utf8')) as unknown;
    return { keys: keysByFingerprint(Array.isArray(list) ? list : []), pinned: false, source };
  } catch {
    return { keys: new Map(), pinned: false, source };
  }
}

async function sealFindings(
  dir: string,
  manifestBytes: Buffer,
  format: unknown,
  trust: Trust,
  findings: string[],
  unknowns: string[],
): Promise<PackReport['sealed']> {
  const bytes = await readWhole(join(dir, SEAL), PACK_LIMITS.sealBytes);
  if (!Buffer.isBuffer(bytes)) {
    if (bytes.missing)
      findings.push(
        'cannot prove: the manifest is not signed (the pack has no seal.json: ' +
          (format === PACK_FORMAT ? 'it was removed)' : 'made by a version before seals, make it again)'),
      );
    else (bytes.unknown ? unknowns : findings).push(`${SEAL} ${bytes.problem}: the manifest's seal cannot be read`);
    return null;
  }
  let answer: unknown;
  try {
    answer = JSON.parse(bytes.toString('utf8'));
  } catch {
    findings.push(`${SEAL} is not JSON: the manifest's seal cannot be read`);
    return null;
  }
  const r = checkSeal(answer, sha256Hex(manifestBytes), trust);
  if (r.ok) return { ...r.entry, fingerprint: r.fingerprint };
  (r.unknown ? unknowns : findings).push(`the seal of the manifest (${SEAL}): ${r.problem}`);
  return null;
}

async function fileFindings(
  dir: string,
  f: ManifestRecord,
  cap: number,
  findings: string[],
  unknowns: string[],
): Promise<void> {
  const h = await openRegular(join(dir, f.name));
  if ('problem' in h) {
    (h.unknown ? unknowns : findings).push(`${f.name} ${h.problem}`);
    return;
  }
  try {
    if (h.size > cap) {
      findings.push(`${f.name} is larger than a pack's ${f.name} may be (${thousands(cap)} bytes): not read`);
      return;
    }
    // its size first: a file that is not the listed size is not read to find it changed
    if (h.size !== f.bytes) {
      findings.push(`${f.name} does not match the manifest (changed after the pack was made)`);
      return;
    }
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of chunksOf(h.fh, cap)) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    if (bytes !== f.bytes || hash.digest('hex') !== f.sha256)
      findings.push(`${f.name} does not match the manifest (changed after the pack was made)`);
  } catch (err) {
    unknowns.push(`${f.name} could not be read: ${errnoWords(err)}`);
  } finally {
    await h.fh.close();
  }
}

async function exportFindings(
  dir: string,
  file: string,
  signed: { statement: SignedStatement | null; checkpoint: Checkpoint | null } | undefined,
  trust: Trust,
  cap: number,
): Promise<{ verdict?: Verdict; findings: string[]; unknowns: string[]; notes: string[] }> {
  const h = await openRegular(join(dir, file));
  // fileFindings said why it cannot be read
  if ('problem' in h || h.size > cap) {
    if (!('problem' in h)) await h.fh.close();
    return { findings: [], unknowns: [], notes: [] };
  }
  try {
    const format: { value?: TrailFormat } = {};
    const r = await verifyTrail(readTrail(chunksOf(h.fh, cap), format), {
      statement: signed?.statement ?? null,
      checkpoint: signed?.checkpoint ?? null,
      trust,
      format,
    });
    const notes = [...(r.proven ? [`${VERDICT_WORDS[r.verdict]}: ${r.proven}`] : []), ...r.notes];
    return { verdict: r.verdict, findings: r.findings, unknowns: r.unknowns, notes };
  } catch (err) {
    return { findings: [], unknowns: [`could not be read: ${errnoWords(err)}`], notes: [] };
  } finally {
    await h.fh.close();
  }
}

type Unreadable = { problem: string; unknown?: true; missing?: true };

/**
 * A regular file of the pack, opened without following a link and without waiting (a FIFO with no
 * writer, a device), then checked by its own descriptor: what is read is what was checked.
 */
async function openRegular(path: string): Promise<{ fh: FileHandle; size: number } | Unreadable> {
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { problem: 'is missing', missing: true };
    if (code === 'ELOOP' || code === 'EMLINK') return { problem: 'is a symbolic link: a link is not evidence' };
    if (code === 'ENXIO') return { problem: 'is not a regular file (a socket or a device is not evidence)' };
    return { problem: `could not be read: ${errnoWords(err)}`, unknown: true };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) {
      await fh.close();
      return { problem: 'is not a regular file (a folder, a FIFO or a device is not evidence)' };
    }
    return { fh, size: st.size };
  } catch (err) {
    await fh.close();
    return { problem: `could not be read: ${errnoWords(err)}`, unknown: true };
  }
}

/** A small file whole (manifest, seal, statement, keys), or why not. */
async function readWhole(path: string, cap: number): Promise<Buffer | Unreadable> {
  const h = await openRegular(path);
  if ('problem' in h) return h;
  try {
    if (h.size > cap) return { problem: `is larger than ${thousands(cap)} bytes: not read` };
    const chunks: Buffer[] = [];
    for await (const chunk of chunksOf(h.fh, cap)) chunks.push(chunk);
    return Buffer.concat(chunks);
  } catch (err) {
    return err instanceof TooLarge
      ? { problem: `is larger than ${thousands(cap)} bytes: not read` }
      : { problem: `could not be read: ${errnoWords(err)}`, unknown: true };
  } finally {
    await h.fh.close();
  }
}

class TooLarge extends Error {
  constructor(cap: number) {
    super(`it grew past ${thousands(cap)} bytes while it was read`);
  }
}

/** The file's bytes from its start, at most `cap` of them (a file that grows while read is stopped). */
async function* chunksOf(fh: FileHandle, cap: number): AsyncGenerator<Buffer> {
  let position = 0;
  for (;;) {
    const buffer = Buffer.allocUnsafe(1 << 20);
    const { bytesRead } = await fh.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    if (position > cap) throw new TooLarge(cap);
    yield buffer.subarray(0, bytesRead);
  }
}

function errnoWords(err: unknown): string {
  if (err instanceof TooLarge) return err.message;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : sanitize((err as Error | null)?.message ?? String(err), 200);
}
