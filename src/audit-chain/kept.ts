/**
 * The page check's use of what the dashboard kept of the chain (memory.ts): the trail must still
 * hold the checkpoint kept earlier, and a failed whole-trail verify stays a break.
 */
import { thousands } from '../text/thousands.js';
import type { ChainCheck, TrailVerified } from './chain-state.js';
import type { Checkpoint } from './checkpoint.js';
import { keepCheckpoint, type ChainMemory } from './memory.js';

type Broken = Extract<ChainCheck, { ok: false }>;
type Page = Map<number, Record<string, unknown>>;
const n = thousands;

/**
 * Where the appliance no longer holds the checkpoint kept earlier: it lists none (it never
 * removes one), its newest is older (it signs its head, which only grows), or the kept entry, on
 * the page or signed again, has another hash. `newest` null: the appliance lists no checkpoint.
 * `listedBefore`: the list was read before the checkpoint was kept (V keeps the head its export
 * signed, which a list polled just before it cannot hold): only the hashes are compared then.
 */
export function keptFinding(
  kept: Checkpoint | null,
  newest: Checkpoint | null,
  page: Page,
  listedBefore = false,
): Broken | null {
  if (!kept) return null;
  const broken = (finding: string): Broken => ({ ok: false, seq: kept.seq, finding });
  const since = `it signed #${n(kept.seq)} earlier (a checkpoint kept earlier)`;
  const onPage = page.get(kept.seq)?.hash;
  if ((onPage !== undefined && onPage !== kept.hash) || (newest?.seq === kept.seq && newest.hash !== kept.hash))
    return broken(
      `entry #${n(kept.seq)} is no longer what the checkpoint kept earlier recorded: the trail was rewritten since`,
    );
  if (listedBefore) return null;
  if (!newest) return broken(`the appliance lists no checkpoint, but ${since}: its checkpoints were removed`);
  if (newest.seq < kept.seq)
    return broken(`the appliance's newest checkpoint is #${n(newest.seq)}, but ${since}: the trail was cut since`);
  return null;
}

/** A failed whole-trail verify (V) of this appliance, at the entry its first finding names. */
export function memoryFinding(v: TrailVerified | null): Broken | null {
  if (!v || v.verdict !== 'broken') return null;
  const at = /#([\d,]+)/.exec(v.finding ?? '')?.[1];
  return {
    ok: false,
    seq: at === undefined ? null : Number(at.replace(/,/g, '')),
    finding: `${v.finding ?? 'the whole-trail verify failed'} (V)`,
  };
}

/**
 * Keeps the newest checkpoint: the first one seen, or a newer one where the page proves the
 * chain from the kept one to it (every entry between on the page, each checked and linked), so
 * that a trail rewritten and signed again behind the dashboard's back is never what it keeps.
 */
export function moveKept(memory: ChainMemory, newest: Checkpoint, page: Page): void {
  const kept = memory.kept;
  if (kept && newest.seq <= kept.seq) {
    // the same head served with its tree (V kept it from its export's header, which carries none): kept with it
    if (newest.seq === kept.seq && newest.hash === kept.hash) keepCheckpoint(memory, newest);
    return;
  }
  if (kept) for (let seq = kept.seq; seq <= newest.seq; seq++) if (!page.has(seq)) return;
  keepCheckpoint(memory, newest);
}
