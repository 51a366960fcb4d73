import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { asTreeCheckpoint, verifyTreeCheckpoint, type SignedTree } from '../audit-chain/tree-checkpoint.js';
import type { Trust } from '../audit-chain/verify-trail.js';

/**
 * What the CLI keeps between runs, in the XDG state directory ($XDG_STATE_HOME/appliance-admin,
 * else ~/.local/state/appliance-admin): per appliance key, the newest checkpoint it verified
 * (checkpoints/<key fingerprint>.json), as Go's checksum database client keeps the newest tree it
 * saw; a witness's last cosigned checkpoint per log (witness/…); and evidence of forks (forks/…).
 *
 * Everything here is read back as untrusted: bounded in size, a regular file, its checkpoint's
 * signature verified again with the caller's keys before anything in it is believed.
 */
export const STATE_FORMAT = 'appliance-admin/remembered-checkpoint/v1';
const MAX_BYTES = 1024 * 1024;

export function stateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'appliance-admin');
}

export type Remembered = { tree: SignedTree; file: string } | { file: string; unusable: string } | null;

/** The checkpoint kept in `file`, verified with `trust`; null when there is none. */
export function readRememberedFile(file: string, trust: Trust): Remembered {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return null;
  }
  const unusable = (why: string) => ({ file, unusable: `${why}; remove it to start again from the next checkpoint` });
  if (!st.isFile()) return unusable('it is not a regular file');
  if (st.size > MAX_BYTES) return unusable(`it is larger than ${MAX_BYTES} bytes`);
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return unusable('it is not JSON');
  }
  const o = v as { format?: unknown; checkpoint?: unknown } | null;
  if (o?.format !== STATE_FORMAT) return unusable(`it is not a remembered checkpoint (${STATE_FORMAT})`);
  const c = asTreeCheckpoint(o.checkpoint);
  if (typeof c === 'string') return unusable(`its checkpoint is unusable: ${c}`);
  const checked = verifyTreeCheckpoint(c, trust, 'the remembered checkpoint');
  if (!checked.ok) return unusable('finding' in checked ? checked.finding : checked.unknown);
  return { tree: checked.tree, file };
}

/** Writes `text` to `file` whole or not at all (a temporary file renamed over it), mode 0600. */
function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { mode: 0o600, flag: 'w' });
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

const stateText = (tree: SignedTree) =>
  `${JSON.stringify({ format: STATE_FORMAT, checkpoint: tree.checkpoint }, null, 2)}\n`;

/** The CLI's remembered checkpoints, one per appliance key (the key that signed them). */
export class CheckpointState {
  readonly dir: string;

  constructor(env: NodeJS.ProcessEnv) {
    this.dir = stateDir(env);
  }

  fileOf(fingerprint: string): string {
    return join(this.dir, 'checkpoints', `${fingerprint}.json`);
  }

  /** The checkpoints remembered under each trusted key (an appliance's rotated keys included). */
  remembered(trust: Trust): Exclude<Remembered, null>[] {
    return [...trust.keys.keys()].flatMap((f) => readRememberedFile(this.fileOf(f), trust) ?? []);
  }

  remember(tree: SignedTree): void {
    ensureDir(join(this.dir, 'checkpoints'));
    writeAtomically(this.fileOf(tree.keyFingerprint), stateText(tree));
  }

  /** A witness's last cosigned checkpoint of a log: one file per witness key and origin. */
  witnessFile(witnessKeyId: string, origin: string): string {
    const o = createHash('sha256').update(origin).digest('hex').slice(0, 16);
    return join(this.dir, 'witness', `${witnessKeyId}-${o}.json`);
  }

  rememberCosigned(file: string, tree: SignedTree): void {
    ensureDir(join(this.dir, 'witness'));
    writeAtomically(file, stateText(tree));
  }

  /** Writes fork evidence; returns the file. */
  writeFork(evidence: string, foundAt: string): string {
    const dir = join(this.dir, 'forks');
    ensureDir(dir);
    const stamp = foundAt.replace(/[-:]/g, '').replace(/\.\d+/, '');
    const file = join(dir, `fork-${stamp}-${createHash('sha256').update(evidence).digest('hex').slice(0, 8)}.json`);
    writeFileSync(file, evidence, { mode: 0o600, flag: 'wx' });
    return file;
  }
}
