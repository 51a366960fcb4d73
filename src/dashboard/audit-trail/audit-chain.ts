/**
 * The audit chain's state as the dashboard sees it (docs/audit-chain.md): each page of entries it
 * reads and the newest signed checkpoint, checked with the offline verifier's own functions.
 */
import type { ChainCheck } from '../../audit-chain/chain-state.js';
import type { PinnedAuditKey } from '../../audit-chain/keys-file.js';
import { shortTime } from '../kit/format.js';
import { thousands } from '../../text/thousands.js';

const n = thousands;

let checkChain: typeof import('../../audit-chain/page-check.js').checkChain | undefined;
let loading: Promise<void> | undefined;
/**
 * Starts loading the checks: they need node:crypto, which the dashboard's first frame does not
 * (test/build/dashboard-bundle.test.ts). A screen calls this when it starts polling, so they are
 * there before its first answer.
 */
export function loadChainCheck(): void {
  loading ??= import('../../audit-chain/page-check.js').then(
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
 * The checks of src/audit-chain/page-check.ts once loaded (see loadChainCheck), else undefined, on
 * the answers as they were served (ResourceEntry `served`): `page` the list answer (its `data`),
 * `checkpoints` the checkpoint list's, never the rows the dashboard shows. `whole`: the page is of
 * the unfiltered trail, so a gap between its entries is entries removed. `auditKey`: the key pinned
 * for this appliance, which the checkpoint must verify with.
 */
export function chainCheckOf(
  page: unknown,
  checkpoints: unknown,
  o: { whole: boolean; auditKey?: PinnedAuditKey },
): ChainCheck | undefined {
  const entries = (page as { data?: unknown } | null)?.data;
  if (!Array.isArray(entries)) return undefined;
  loadChainCheck();
  return checkChain?.(entries, checkpoints, {
    whole: o.whole,
    ...(o.auditKey ? { pinnedPem: o.auditKey.pem } : {}),
  });
}

/** "2 min ago", as the header says an age. */
function ago(ms: number, nowMs: number): string {
  const s = Math.max(0, Math.round((nowMs - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  return `on ${shortTime(new Date(ms).toISOString())}`;
}

/** A break, not a check that could not be made (the pinned key file unusable). */
export const chainBroken = (check: ChainCheck | undefined): boolean => check?.ok === false && !check.unchecked;

/**
 * The words of the audit screen's header: "CHAIN BROKEN at #N: …" (it says so without colour), or
 * what was checked and the newest checkpoint, with the key it verified with: the one pinned for
 * this appliance, or only the appliance's own.
 */
export function chainText(check: ChainCheck, nowMs: number): string {
  if (!check.ok)
    return check.unchecked
      ? `chain not checked: ${check.finding}`
      : `CHAIN BROKEN${check.seq === null ? '' : ` at #${n(check.seq)}`}: ${check.finding}`;
  const parts: string[] = [];
  const { verified } = check;
  // A verify with a key that is not pinned proves the trail only as far as the appliance's own key
  // is trusted: said with the claim itself, not after the checkpoint, where 80 columns cut it off
  // and "chain verified" would be read as the pinned answer.
  const unpinned = verified?.verdict === 'verified-unpinned';
  // a V that could not check proves nothing: the page's own check is said instead
  if (verified && (verified.verdict === 'verified' || unpinned))
    parts.push(
      `chain verified to #${n(verified.lastSeq)}${unpinned ? ' by a key not pinned' : ''} (${ago(verified.at, nowMs)})`,
    );
  else if (check.firstSeq !== null && check.whole)
    parts.push(`chain checks out (page #${n(check.firstSeq)}–#${n(check.lastSeq!)})`);
  // a filtered page shows some entries of a stretch: it proves them unaltered, not that none is missing
  else if (check.firstSeq !== null)
    parts.push(`entries unaltered (filtered page #${n(check.firstSeq)}–#${n(check.lastSeq!)})`);
  if (check.checkpoint) {
    const c = check.checkpoint.checkpoint;
    const at = Date.parse(c.at);
    // the key's fingerprint is on the deployment and settings screens: the header has no room for it
    parts.push(
      `checkpoint #${n(c.seq)} signed ${Number.isNaN(at) ? c.at : ago(at, nowMs)} ` +
        (check.pinned
          ? 'by the pinned key'
          : unpinned
            ? "by the appliance's key"
            : "by the appliance's key (not pinned)"),
    );
  }
  return parts.join(' · ');
}

export type { ChainCheck };
