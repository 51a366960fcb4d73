import type { Checkpoint } from './checkpoint.js';
import type { Verdict } from './verdict.js';

/** A check of what the dashboard read of the trail: what it covers, or the first break found. */
export type ChainCheck =
  | {
      ok: true;
      firstSeq: number | null;
      lastSeq: number | null;
      checkpoint: CheckedCheckpoint | null;
      /** the page was checked as a run of the trail, gaps included (unfiltered) */
      whole: boolean;
      /** the last whole-trail verify (V) of this appliance in this run */
      verified: TrailVerified | null;
      /** the checkpoint's key was pinned (the config's audit-key), not only served by the appliance */
      pinned: boolean;
    }
  /**
   * `unchecked`: nothing was found, but the check could not be made (the pinned key file holds no
   * usable key): said as a warning, never as a break
   */
  | { ok: false; seq: number | null; finding: string; unchecked?: true };

export interface CheckedCheckpoint {
  checkpoint: Checkpoint;
  fingerprint: string;
}

/** The last whole-trail verify (`V`), kept for the run (memory.ts) so that the headers say it. */
export interface TrailVerified {
  verdict: Verdict;
  lastSeq: number;
  at: number;
  /** the verifier's first finding, when it failed */
  finding?: string;
}
