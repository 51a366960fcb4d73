/**
 * What the dashboard keeps of an appliance's audit chain while it runs: the newest signed
 * checkpoint it has seen proved (a "checkpoint kept earlier", as `audit verify --since` takes one)
 * and the last whole-trail verify (V). A later page check and V compare the trail with the kept
 * checkpoint, so a tail cut or a trail rewritten since is found even when the appliance's own
 * checkpoints were removed with it. Loaded with the chain checks, not for the first frame.
 *
 * A run may switch appliances (`:appliance`), and tests render several: what is kept belongs to
 * the appliance whose served keys include the one that signed it, and applies only there.
 */
import type { TrailVerified } from './chain-state.js';
import type { Checkpoint } from './checkpoint.js';

export interface ChainMemory {
  kept: Checkpoint | null;
  /** memoryChanges() as `kept` was kept: a checkpoint list read before then may not list it yet */
  keptAt: number;
  verified: TrailVerified | null;
}

const byKey = new Map<string, ChainMemory>();
let changes = 0;

/** Counts what was kept or verified, so that a check kept for an answer is made again after it. */
export const memoryChanges = () => changes;

/**
 * The memory of the appliance serving keys with these fingerprints (computed from the keys), made
 * when there is none: an appliance lists every key it ever signed with, so one it shares is its own.
 */
export function memoryOf(fingerprints: string[]): ChainMemory {
  let memory = fingerprints.map((f) => byKey.get(f)).find(Boolean);
  memory ??= { kept: null, keptAt: 0, verified: null };
  for (const f of fingerprints) byKey.set(f, memory);
  return memory;
}

export function keepCheckpoint(memory: ChainMemory, c: Checkpoint): void {
  if (memory.kept?.seq === c.seq && memory.kept.hash === c.hash) return;
  memory.kept = c;
  memory.keptAt = ++changes;
}

export function rememberVerify(memory: ChainMemory, verified: TrailVerified): void {
  memory.verified = verified;
  changes++;
}
