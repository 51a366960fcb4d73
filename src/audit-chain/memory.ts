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
import type { ChainCheck, TrailVerified } from './chain-state.js';
import type { Checkpoint } from './checkpoint.js';

export interface ChainMemory {
  /** the kept checkpoint as served: with its tree and note when the appliance signs them (kept-advance.ts) */
  kept: Checkpoint | null;
  /** memoryChanges() as `kept` was kept: a checkpoint list read before then may not list it yet */
  keptAt: number;
  verified: TrailVerified | null;
  /** a newer checkpoint that no consistency proof joins to the kept one (a fork): a break for the rest of the run */
  broken: Extract<ChainCheck, { ok: false }> | null;
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
  memory ??= { kept: null, keptAt: 0, verified: null, broken: null };
  for (const f of fingerprints) byKey.set(f, memory);
  return memory;
}

const hasTree = (c: Checkpoint) => typeof (c as { note?: unknown }).note === 'string';

export function keepCheckpoint(memory: ChainMemory, c: Checkpoint): void {
  if (memory.kept?.seq === c.seq && memory.kept.hash === c.hash) {
    // the same head, served with its tree (V keeps its export's head, whose header carries none): kept with it,
    // so that the next one is reached by a consistency proof
    if (!hasTree(memory.kept) && hasTree(c)) memory.kept = c;
    return;
  }
  memory.kept = c;
  memory.keptAt = ++changes;
}

/** Keeps a break found outside a page (a fork): said by every check of this appliance for the rest of the run. */
export function rememberBreak(memory: ChainMemory, broken: Extract<ChainCheck, { ok: false }>): void {
  memory.broken ??= broken;
  changes++;
}

export function rememberVerify(memory: ChainMemory, verified: TrailVerified): void {
  memory.verified = verified;
  changes++;
}
