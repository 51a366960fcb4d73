import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { RouteName } from '../contract/route-meta.js';
import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { entryHash } from './canonical.js';
import { asCheckpoint, checkpointSignatureValid, keysByFingerprint, type Checkpoint } from './checkpoint.js';
import { packReadme, roleMatrix, secretIn, type TokenMatcher } from './evidence-contents.js';
import { PROOF_FORMAT, proofFileText, type ProofFile } from './proof-file.js';
import { statementFileOf } from './statement-file.js';
import { asTreeCheckpoint } from './tree-checkpoint.js';
import type { Trust } from './verify-trail.js';

/**
 * The evidence pack (docs/audit-chain.md, "Evidence packs"): its files, its manifest and its seal,
 * and how it is made. `appliance-admin evidence` and the dashboard's E make it with this code, each
 * over its own connection (PackSource); `evidence verify` checks it (evidence-verify.ts).
 *
 * The manifest lists every file with its sha256 and size; the pack maker then has the appliance seal
 * the manifest's sha256 (POST /audit/seal): an `audit.seal` entry and a signed checkpoint of it, kept
 * as seal.json beside the manifest (not in it). So nothing in the pack is believed unsigned: the
 * audit exports by their signed statements, every file by the sealed manifest.
 */

export const PACK_FORMAT = 'appliance-admin evidence pack v2';
export const MANIFEST = 'manifest.json';
export const SEAL = 'seal.json';
const SEAL_PURPOSE = 'evidence-pack';
export const AUDIT_EXPORTS = ['audit.jsonl', 'audit.csv'] as const;
export const JOURNAL = 'journal.jsonl';
export const PUBLIC_KEYS = 'public-keys.json';
/**
 * The gateway key inventory, one key a line as the appliance served it, written a page at a time: a
 * pack of a million keys never holds them in memory together. Packs before it held keys.json, one
 * JSON array, which a verifier checks by its hash as any other file.
 */
export const KEY_INVENTORY = 'keys.jsonl';
/**
 * The export's head with its inclusion proof in the appliance's newest signed tree, whose note
 * carries the witnesses' cosignatures (a proof file: docs/audit-chain.md, "Proof files"); absent
 * from an appliance without the tree.
 */
export const TREE_PROOF = 'audit-tree.proof.json';
/**
 * The newest checkpoint a witness cosigned (with its cosignatures) and the consistency proof from
 * its tree to TREE_PROOF's: the pack's trail extends what was witnessed. Absent when none is.
 */
export const WITNESSED = 'audit-witnessed.json';
/** How many of the newest checkpoints are looked through for one a witness cosigned. */
const WITNESSED_LOOKBACK = 100;
/** Beside an export, its signed statement: named as `export audit -o FILE` names it, so `audit verify FILE` finds it. */
export const statementFileName = (file: string) => `${file}.checkpoint.json`;
/** What a pack must hold (and its manifest list) to prove anything: the trail, its statements, the keys. */
export const MANDATORY: readonly string[] = [...AUDIT_EXPORTS, ...AUDIT_EXPORTS.map(statementFileName), PUBLIC_KEYS];

const MiB = 1024 * 1024;
/** The bounds a pack's files are made and read within: a hostile appliance or pack cannot fill a disk or memory. */
export const PACK_LIMITS = {
  manifestBytes: MiB,
  sealBytes: MiB,
  statementBytes: MiB,
  keysBytes: MiB,
  /** the other JSON answers (models, settings, …; the key inventory of packs before keys.jsonl) */
  fileBytes: 64 * MiB,
  /**
   * keys.jsonl, the gateway key inventory: a key's line (a key is well under 2 KiB), the keys, and
   * the file (a million keys take about 1 GiB)
   */
  keyLineBytes: 64 * 1024,
  keys: 5_000_000,
  keyInventoryBytes: 4096 * MiB,
  /** the journal has no signed count to bound it by */
  journalBytes: 1024 * MiB,
  /** files a manifest may list, and entries a pack's folder may hold */
  files: 1000,
  publicKeys: 1000,
} as const;
/**
 * The most an audit export of `count` entries may take: 64 KiB an entry on average (the API takes
 * bodies of 64 KiB at most, and an entry is a few hundred bytes), and 16 MiB to spare.
 */
export const exportByteCap = (count: number): number => count * 64 * 1024 + 16 * MiB;

/** A file name a manifest may list: in the pack's folder itself, not hidden, nothing a path could make of it. */
export const PACK_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** Why no pack was made, in one line (a full disk, a folder that is in the way, an appliance past its bounds). */
export class PackError extends Error {
  override name = 'PackError';
}

type PackJsonRoute = Extract<
  RouteName,
  | 'session'
  | 'listAuditCheckpoints'
  | 'listKeys'
  | 'listModels'
  | 'listRouting'
  | 'deployment'
  | 'settings'
  | 'installPlan'
  | 'getBudgets'
  | 'listAudit'
  | 'auditInclusionProof'
  | 'auditConsistencyProof'
>;

/** An export as it streams: its headers (the signed statement) first, then its bytes. */
interface ExportStream {
  header(name: string): string | undefined;
  body: AsyncIterable<Buffer>;
}

/**
 * Where a pack's contents come from: the CLI's streaming connection, or the dashboard's client. The
 * answers are as served (parsed JSON, neither mended nor sanitized): the seal and the keys are checked.
 */
export interface PackSource {
  json(route: PackJsonRoute, query: Record<string, unknown> | undefined, signal: AbortSignal): Promise<unknown>;
  export(
    route: 'exportAudit' | 'exportJournal',
    query: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ExportStream>;
  /** POST /audit/seal; the answer as served */
  seal(request: { sha256: string; purpose: typeof SEAL_PURPOSE }, signal: AbortSignal): Promise<unknown>;
}

export interface PackOptions {
  /** the range's start, RFC 3339 */
  since: string;
  madeAt: string;
  /** the appliance as shown (no credentials) */
  url: string;
  /** whether a text holds the bearer token the pack was made with, to make sure it is nowhere in it */
  holdsToken: TokenMatcher;
  /** what made it, for the manifest */
  tool: { name: string; version: string };
  /** called before each part is fetched, with what it is */
  onStep?: (what: string) => void;
  /** stops the pack (Ctrl-C, SIGTERM, the dashboard's Esc): nothing is left behind */
  signal?: AbortSignal;
}

export type PackResult =
  | {
      ok: true;
      files: number;
      auditEntries: number;
      checkpointSeq: number;
      csvCheckpointSeq: number;
      sealSeq: number;
    }
  | { ok: false; file: string; line: number; secret: string };

/**
 * Makes an evidence pack at `dest`, which must not exist or be an empty folder: written into a
 * temporary sibling (`dest.partial-…`, mode 0700) and renamed to `dest` once complete and sealed. On
 * any failure, a secret found in it, or `signal`, only that sibling is removed: `dest` is never
 * touched until the rename. File system failures come as a PackError of one line.
 */
export async function writeEvidencePack(src: PackSource, dest: string, o: PackOptions): Promise<PackResult> {
  const signal = o.signal ?? new AbortController().signal;
  await checkDestination(dest);
  const temp = `${dest}.partial-${randomBytes(6).toString('hex')}`;
  try {
    await mkdir(dirname(dest), { recursive: true });
    await mkdir(temp, { mode: 0o700 });
  } catch (err) {
    throw asPackError(err, `cannot make the pack's folder beside ${dest}`);
  }
  let moved = false;
  try {
    const made = await fillPack(src, temp, o, signal);
    signal.throwIfAborted();
    if (!made.ok) return made;
    try {
      await rename(temp, dest);
    } catch (err) {
      throw asPackError(err, `cannot move the finished pack to ${dest}`);
    }
    moved = true;
    return made;
  } catch (err) {
    throw asPackError(err, `cannot write the pack ${dest}`);
  } finally {
    if (!moved) await rm(temp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** `dest` may be made or replaced: absent, or an empty folder (not a link to one). */
async function checkDestination(dest: string): Promise<void> {
  let st;
  try {
    st = await lstat(dest);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw asPackError(err, `cannot use ${dest} for the pack`);
  }
  if (st.isSymbolicLink())
    throw new PackError(`${dest} is a symbolic link: choose another folder for the pack (nothing was made)`);
  if (!st.isDirectory()) throw new PackError(`${dest} exists and is not a folder: choose another (nothing was made)`);
  let names: string[];
  try {
    names = await readdir(dest);
  } catch (err) {
    throw asPackError(err, `cannot use ${dest} for the pack`);
  }
  if (names.length) throw new PackError(`${dest} is not empty: choose another folder for the pack (nothing was made)`);
}

const ERRNO_WORDS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is not a folder',
  ELOOP: 'a symbolic link is in the way',
  ENAMETOOLONG: 'the name is too long',
  EEXIST: 'it exists',
  ENOTEMPTY: 'it exists and is not empty',
  EISDIR: 'it is a folder',
  EMFILE: 'too many open files',
  EIO: 'an input/output error',
};

/** A file system failure as one line (its code, never a stack); anything else as it is. */
function asPackError(err: unknown, what: string): unknown {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (
    err instanceof PackError ||
    typeof code !== 'string' ||
    !/^E[A-Z]+$/.test(code) ||
    !('syscall' in (err as object))
  )
    return err;
  const path = (err as NodeJS.ErrnoException).path;
  const file = path && !basename(path).includes('.partial-') ? ` (${basename(path)})` : '';
  return new PackError(
    `${what}${file}: ${ERRNO_WORDS[code] ?? 'the system refused'} (${code}); nothing was left behind`,
  );
}

async function fillPack(src: PackSource, dir: string, o: PackOptions, signal: AbortSignal): Promise<PackResult> {
  const step = o.onStep ?? (() => {});
  const session = asObject(await src.json('session', undefined, signal));
  step('public keys');
  const listed = asObject(await src.json('listAuditCheckpoints', { limit: 1 }, signal));
  const served = Array.isArray(listed.public_keys) ? listed.public_keys.slice(0, PACK_LIMITS.publicKeys) : [];
  const keys = keysByFingerprint(served);
  if (!keys.size)
    throw new PackError(
      'the appliance serves no public key for its audit trail, so neither its exports nor its seal could be ' +
        'verified; no pack was made',
    );
  await writeJson(dir, PUBLIC_KEYS, served, PACK_LIMITS.keysBytes);
  const filters = { start_time: o.since };
  // purpose=evidence puts "this export made an evidence pack" in the export's own audit entry
  step('audit trail (JSON Lines)');
  const jsonl = await auditExport(
    src,
    dir,
    'audit.jsonl',
    { format: 'jsonl', ...filters, purpose: 'evidence' },
    signal,
  );
  step('audit trail (CSV)');
  const csv = await auditExport(src, dir, 'audit.csv', { format: 'csv', ...filters, purpose: 'evidence' }, signal);
  step("the trail's head in its signed tree");
  await treeProof(src, dir, jsonl.seq, signal);
  step('agent journal');
  const journal = await src.export('exportJournal', { format: 'jsonl', ...filters, purpose: 'evidence' }, signal);
  await writeCapped(join(dir, JOURNAL), journal.body, PACK_LIMITS.journalBytes, signal, () =>
    tooLarge('the agent journal', PACK_LIMITS.journalBytes),
  );
  step('keys, models, routing, settings, deployment, install plan, budgets');
  await writeKeyInventory(src, join(dir, KEY_INVENTORY), signal);
  await writeJson(dir, 'models.json', await allPages(src, 'listModels', signal));
  await writeJson(dir, 'routing.json', await allPages(src, 'listRouting', signal));
  const deployment = await src.json('deployment', undefined, signal);
  for (const [file, route] of [
    ['settings.json', 'settings'],
    ['install-plan.json', 'installPlan'],
    ['budgets.json', 'getBudgets'],
  ] as const)
    await writeJson(dir, file, await src.json(route, undefined, signal));
  await writeJson(dir, 'deployment.json', deployment);
  await writeJson(dir, 'role-matrix.json', roleMatrix());
  const readme = packReadme({ url: o.url, since: o.since, madeAt: o.madeAt, fingerprints: [...keys.keys()] });
  await writeFile(join(dir, 'README.txt'), readme, { mode: 0o600, flag: 'wx' });

  step('scanning for secrets');
  const found = await secretAmong(dir, o.holdsToken);
  if (found) return found;

  step('sealing the manifest');
  const manifest = await manifestText(dir, {
    o,
    made_by: { subject: stringOrNull(session.subject), role: stringOrNull(session.role) },
    appliance_version: asObject(deployment).version ?? null,
    audit: { entries: jsonl.count, checkpoint_seq: jsonl.seq, csv_checkpoint_seq: csv.seq },
  });
  await writeFile(join(dir, MANIFEST), manifest, { mode: 0o600, flag: 'wx' });
  const sha256 = sha256Hex(manifest);
  const answer = await src.seal({ sha256, purpose: SEAL_PURPOSE }, signal);
  const sealed = checkSeal(answer, sha256, { keys, pinned: false, source: 'the keys the appliance serves' });
  if (!sealed.ok) throw new PackError(`the appliance's seal of the manifest does not verify: ${sealed.problem}`);
  await writeJson(dir, SEAL, answer, PACK_LIMITS.sealBytes);
  const inSeal = await secretIn(join(dir, SEAL), o.holdsToken);
  if (inSeal) return { ok: false, file: SEAL, ...inSeal };
  return {
    ok: true,
    files: (await readdir(dir)).length,
    auditEntries: jsonl.count,
    checkpointSeq: jsonl.seq,
    csvCheckpointSeq: csv.seq,
    sealSeq: sealed.checkpoint.seq,
  };
}

/**
 * An audit export into `name`, its signed statement beside it; refused without a statement (nothing
 * would prove the file complete), and stopped once it holds more bytes than the signed count allows.
 */
async function auditExport(
  src: PackSource,
  dir: string,
  name: string,
  query: Record<string, unknown>,
  signal: AbortSignal,
): Promise<{ seq: number; count: number }> {
  const res = await src.export('exportAudit', query, signal);
  const s = statementFileOf({
    statement: res.header('audit-export-statement') ?? null,
    checkpoint: res.header('audit-checkpoint') ?? null,
  });
  if (s.text === null) {
    await stopReading(res.body);
    throw new PackError(`${name}: ${s.why}; no pack was made`);
  }
  const cap = exportByteCap(s.count);
  await writeCapped(join(dir, name), res.body, cap, signal, () =>
    tooLarge(`${name} (the appliance signed ${thousands(s.count)} entries)`, cap),
  );
  await writeFile(join(dir, statementFileName(name)), s.text, { mode: 0o600, flag: 'wx' });
  return { seq: s.seq, count: s.count };
}

/**
 * TREE_PROOF: entry `head` (the export's signed head) with its inclusion proof in the newest signed
 * tree, the checkpoint as served with its note and cosignatures. Nothing when the appliance keeps no
 * tree yet (its checkpoints carry none) or the head is not in the newest tree.
 */
async function treeProof(src: PackSource, dir: string, head: number, signal: AbortSignal): Promise<void> {
  const listed = asObject(await src.json('listAuditCheckpoints', { limit: WITNESSED_LOOKBACK }, signal));
  const page = Array.isArray(listed.data) ? listed.data.slice(0, WITNESSED_LOOKBACK) : [];
  const checkpoint = asTreeCheckpoint(page[0]);
  if (typeof checkpoint === 'string' || checkpoint.seq < head) return;
  const proof = asObject(await src.json('auditInclusionProof', { seq: head, tree_size: checkpoint.tree_size }, signal));
  const entries = asObject(await src.json('listAudit', { seq: head, limit: 1 }, signal)).data;
  const entry = Array.isArray(entries) ? (entries[0] as Record<string, unknown> | undefined) : undefined;
  if (!entry || !Number.isSafeInteger(proof.leaf_index) || !Array.isArray(proof.path)) return;
  const file: ProofFile = {
    format: PROOF_FORMAT,
    checkpoint,
    sample: null,
    entries: [{ entry, leaf_index: proof.leaf_index as number, path: proof.path as string[] }],
  };
  const text = proofFileText(file);
  if (Buffer.byteLength(text) > PACK_LIMITS.statementBytes)
    throw new PackError(tooLarge(TREE_PROOF, PACK_LIMITS.statementBytes));
  await writeFile(join(dir, TREE_PROOF), text, { mode: 0o600, flag: 'wx' });
  // the newest checkpoint a witness cosigned (a line besides the appliance's own), among the newest listed
  const witnessed = page
    .map((c) => asTreeCheckpoint(c))
    .find((c) => typeof c !== 'string' && c.note.split('\n\u2014 ').length > 2);
  if (witnessed === undefined || typeof witnessed === 'string') return;
  const consistency = await src.json(
    'auditConsistencyProof',
    { from: witnessed.tree_size, to: checkpoint.tree_size },
    signal,
  );
  await writeJson(
    dir,
    WITNESSED,
    { checkpoint: witnessed, consistency_proof: consistency },
    PACK_LIMITS.statementBytes,
  );
}

const tooLarge = (what: string, cap: number) =>
  `the appliance sent more than ${thousands(cap)} bytes for ${what}, more than it may; stopped, no pack was made`;

/**
 * Lets go of a body not to be read: a stream is destroyed, a generator runs its cleanup (closing its
 * connection), which one not yet started would not: it is started first.
 */
export async function stopReading(body: AsyncIterable<Buffer>): Promise<void> {
  const it = body[Symbol.asyncIterator]();
  try {
    await it.next();
    await it.return?.();
  } catch {
    /* it ended on its own */
  }
}

/** Writes a body into a new file, stopping with a PackError once it passes `cap` bytes. */
async function writeCapped(
  file: string,
  body: AsyncIterable<Buffer>,
  cap: number,
  signal: AbortSignal,
  tooMuch: () => string,
): Promise<number> {
  const fh = await open(file, 'wx', 0o600);
  let bytes = 0;
  try {
    for await (const chunk of body) {
      signal.throwIfAborted();
      bytes += chunk.length;
      if (bytes > cap) throw new PackError(tooMuch());
      for (let off = 0; off < chunk.length;) off += (await fh.write(chunk, off, chunk.length - off)).bytesWritten;
    }
  } finally {
    await fh.close();
  }
  return bytes;
}

/** The bounds of a key inventory (PACK_LIMITS'), smaller in tests. */
export type KeyInventoryLimits = Record<'keyLineBytes' | 'keys' | 'keyInventoryBytes', number>;

/**
 * KEY_INVENTORY from every page of the key list, each page written as it arrives. Stops with a
 * PackError past PACK_LIMITS (a key's line, the keys, the bytes), or when the appliance's cursor
 * does not move: a hostile appliance cannot fill the disk or loop. `limits`: smaller in tests.
 */
export async function writeKeyInventory(
  src: Pick<PackSource, 'json'>,
  file: string,
  signal: AbortSignal,
  limits: KeyInventoryLimits = PACK_LIMITS,
): Promise<number> {
  const fh = await open(file, 'wx', 0o600);
  let keys = 0;
  let bytes = 0;
  try {
    for (let after: string | undefined; ;) {
      const body = asObject(await src.json('listKeys', { limit: 500, ...(after ? { after } : {}) }, signal));
      signal.throwIfAborted();
      const data: unknown[] = Array.isArray(body.data) ? body.data : [];
      keys += data.length;
      if (keys > limits.keys)
        throw new PackError(
          `the appliance listed more than ${thousands(limits.keys)} gateway keys, more than a pack holds; stopped, no pack was made`,
        );
      const lines = data.map((key) => `${JSON.stringify(key ?? null)}\n`);
      if (lines.some((line) => Buffer.byteLength(line) > limits.keyLineBytes))
        throw new PackError(tooLarge('one gateway key', limits.keyLineBytes));
      const chunk = Buffer.from(lines.join(''));
      bytes += chunk.length;
      if (bytes > limits.keyInventoryBytes) throw new PackError(tooLarge('the gateway keys', limits.keyInventoryBytes));
      for (let off = 0; off < chunk.length;) off += (await fh.write(chunk, off, chunk.length - off)).bytesWritten;
      const next = body.next_cursor;
      if (typeof next !== 'string' || body.has_more === false) return keys;
      if (next === after)
        throw new PackError("the appliance's list of gateway keys did not move past a page; stopped, no pack was made");
      after = next;
    }
  } finally {
    await fh.close();
  }
}

/** Every item of a paged list, within the bound of a pack's file. */
async function allPages(src: PackSource, route: PackJsonRoute, signal: AbortSignal): Promise<unknown[]> {
  const out: unknown[] = [];
  let bytes = 0;
  let after: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const body = asObject(await src.json(route, { limit: 500, after }, signal));
    const data = Array.isArray(body.data) ? body.data : [];
    bytes += JSON.stringify(data).length;
    if (bytes > PACK_LIMITS.fileBytes) throw new PackError(tooLarge(`the list ${route}`, PACK_LIMITS.fileBytes));
    out.push(...data);
    if (typeof body.next_cursor !== 'string') break;
    after = body.next_cursor;
  }
  return out;
}

async function writeJson(dir: string, name: string, value: unknown, cap: number = PACK_LIMITS.fileBytes) {
  const text = `${JSON.stringify(value ?? null, null, 2)}\n`;
  if (Buffer.byteLength(text) > cap) throw new PackError(tooLarge(name, cap));
  await writeFile(join(dir, name), text, { mode: 0o600, flag: 'wx' });
}

/** The first secret any file holds, by file and line; null when none does. */
async function secretAmong(dir: string, holdsToken: TokenMatcher): Promise<Extract<PackResult, { ok: false }> | null> {
  for (const f of (await readdir(dir)).sort()) {
    const found = await secretIn(join(dir, f), holdsToken);
    if (found) return { ok: false, file: f, ...found };
  }
  return null;
}

async function manifestText(
  dir: string,
  facts: { o: PackOptions; made_by: unknown; appliance_version: unknown; audit: Record<string, number> },
): Promise<string> {
  const files = [];
  for (const name of (await readdir(dir)).sort()) {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of createReadStream(join(dir, name))) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    files.push({ name, sha256: hash.digest('hex'), bytes });
  }
  const { o } = facts;
  return `${JSON.stringify(
    {
      pack: PACK_FORMAT,
      made_at: o.madeAt,
      made_by: facts.made_by,
      appliance: { url: o.url, version: facts.appliance_version },
      tool: o.tool,
      filters: { since: o.since, until: o.madeAt },
      audit: facts.audit,
      sealed: `${SEAL}: the appliance's audit.seal entry of this file's sha256 and its signed checkpoint`,
      files,
    },
    null,
    2,
  )}\n`;
}

/**
 * The pack's audit trail in a line, for the CLI and the dashboard: JSON Lines and CSV are two
 * exports, each ending at its own signed checkpoint (the second export's entry comes after the first).
 */
export function auditTrailSummary(made: Extract<PackResult, { ok: true }>, since: string): string {
  return (
    `${thousands(made.auditEntries)} entries since ${since}, in two exports: ` +
    `audit.jsonl (checkpoint #${thousands(made.checkpointSeq)}) and audit.csv (checkpoint #${thousands(made.csvCheckpointSeq)}), ` +
    `sealed at #${thousands(made.sealSeq)}`
  );
}

/** The seal's entry, once checked: who sealed the manifest, when. */
export interface SealEntry {
  seq: number;
  at: string;
  actor: { subject: string; role: string | null };
}

export type SealCheck =
  | { ok: true; entry: SealEntry; checkpoint: Checkpoint; fingerprint: string }
  /** `unknown`: it could not be checked (no key to check it with), rather than found wrong */
  | { ok: false; problem: string; unknown?: true };

/**
 * Whether `answer` (seal.json, the appliance's answer to POST /audit/seal) seals `manifestSha256`:
 * its checkpoint's signature verifies with a trusted key, the checkpoint signs the entry (its hash
 * is the entry's canonical hash, at its seq), and the entry is a successful `audit.seal` of that
 * sha256 for an evidence pack.
 */
export function checkSeal(answer: unknown, manifestSha256: string, trust: Trust): SealCheck {
  const fail = (problem: string): SealCheck => ({ ok: false, problem });
  const a = asObject(answer);
  const cp = asCheckpoint(a.checkpoint);
  if (typeof cp === 'string') return fail(`its checkpoint is not one (${cp})`);
  const entry = a.entry;
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return fail('it holds no audit entry');
  const e = entry as Record<string, unknown>;
  let hash: string;
  try {
    hash = entryHash(e);
  } catch {
    return fail('its entry has no canonical form, so it cannot be hashed');
  }
  if (e.seq !== cp.seq || hash !== cp.hash || e.hash !== hash)
    return fail(`its entry is not the one its checkpoint #${thousands(cp.seq)} signed (it was changed)`);
  const key = trust.keys.get(cp.key_fingerprint);
  if (!key) {
    if (trust.keys.size === 0)
      return { ok: false, problem: 'there is no public key to check its signature with (give --key)', unknown: true };
    return fail(
      `it is signed by key ${displayFingerprint(cp.key_fingerprint)}, not ${trust.source} ` +
        `(${[...trust.keys.keys()].map(displayFingerprint).join(', ')})`,
    );
  }
  if (!checkpointSignatureValid(cp, key))
    return fail(`its checkpoint's signature does not verify with key ${displayFingerprint(cp.key_fingerprint)}`);
  const details = asObject(e.details);
  if (e.action !== 'audit.seal' || e.outcome !== 'success' || details.purpose !== SEAL_PURPOSE)
    return fail(`its entry #${thousands(cp.seq)} is not a successful audit.seal of an evidence pack`);
  if (details.sha256 !== manifestSha256)
    return fail(
      `it seals another manifest (sha256 ${String(details.sha256).slice(0, 64)}), not this manifest.json ` +
        `(${manifestSha256}): the manifest was changed after it was sealed`,
    );
  const actor = asObject(e.actor);
  return {
    ok: true,
    entry: {
      seq: cp.seq,
      at: typeof e.at === 'string' ? e.at : cp.at,
      actor: { subject: String(actor.subject), role: stringOrNull(actor.role) },
    },
    checkpoint: cp,
    fingerprint: cp.key_fingerprint,
  };
}

export const sha256Hex = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

const asObject = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
