/**
 * The audit chain's state as the dashboard sees it (docs/audit-chain.md): each page of entries it
 * reads and the newest signed checkpoint, checked with the offline verifier's own functions.
 */
import type { ChainCheck } from '../../src/audit-chain/chain-state.js';
import { shortTime } from '../../src/ui/format.js';
import { thousands } from '../../src/text/thousands.js';

const n = thousands;

let checkChain: typeof import('../../src/audit-chain/page-check.js').checkChain | undefined;
let loading: Promise<void> | undefined;
/**
 * Starts loading the checks: they need node:crypto, which the dashboard's first frame does not
 * (test/build/dashboard-bundle.test.ts). A screen calls this when it starts polling, so they are
 * there before its first answer.
 */
export function loadChainCheck(): void {
  loading ??= import('../../src/audit-chain/page-check.js').then(
    (m) => {
      checkChain = m.checkChain;
    },
    () => {
      // not loaded (a process ending under it, as a test run's teardown does): the chain stays
      // unchecked, and the next call tries again, rather than an unhandled rejection
      loading = undefined;
    },
  );
}

/**
 * Resolves once the load started by loadChainCheck (if any) has settled, loaded or failed: a test
 * run waits for it before a test ends (test/helpers/chain-check-settled.ts), so that the teardown
 * never cuts off the import.
 */
export const chainCheckSettled = (): Promise<void> => loading ?? Promise.resolve();

/**
 * The checks of src/audit-chain/page-check.ts once loaded (see loadChainCheck), else undefined. `whole`:
 * the entries are a page of the unfiltered trail, so a gap between them is entries removed.
 */
export function chainCheckOf(
  entries: unknown[],
  checkpoints?: unknown,
  o?: { whole: boolean },
): ChainCheck | undefined {
  loadChainCheck();
  return checkChain?.(entries, checkpoints, o);
}

/** "2 min ago", as the header says an age. */
function ago(ms: number, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `on ${shortTime(new Date(ms).toISOString())}`;
}

/**
 * The words of the audit screen's header and the overview's line: "CHAIN BROKEN at #N: …" (it
 * says so without colour), or what was checked and the newest checkpoint.
 */
export function chainText(check: ChainCheck, nowMs: number): string {
  if (!check.ok) return `CHAIN BROKEN${check.seq === null ? '' : ` at #${n(check.seq)}`}: ${check.finding}`;
  const parts: string[] = [];
  const { verified } = check;
  if (verified) parts.push(`chain verified to #${n(verified.lastSeq)} (${ago(verified.at, nowMs)})`);
  else if (check.firstSeq !== null && check.whole)
    parts.push(`chain checks out (page #${n(check.firstSeq)}–#${n(check.lastSeq!)})`);
  // a filtered page shows some entries of a stretch: it proves them unaltered, not that none is missing
  else if (check.firstSeq !== null)
    parts.push(`entries unaltered (filtered page #${n(check.firstSeq)}–#${n(check.lastSeq!)})`);
  if (check.checkpoint) {
    const c = check.checkpoint.checkpoint;
    const at = Date.parse(c.at);
    // the key's fingerprint is on the deployment and settings screens: the header has no room for it
    parts.push(`checkpoint #${n(c.seq)} signed ${Number.isNaN(at) ? c.at : ago(at, nowMs)}`);
  }
  return parts.join(' · ');
}

export type { ChainCheck };
