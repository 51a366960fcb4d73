/**
 * One verdict, one exit status, from every verifier (audit verify FILE and --url, evidence verify,
 * the dashboard's V): the table of docs/audit-chain.md, "Verdicts".
 */
export type Verdict =
  /** every check held, and the signatures verify with a key given out of band (pinned) */
  | 'verified'
  /** every check held, but with a key the appliance (or the pack) supplied itself: proof only if that key is the appliance's */
  | 'verified-unpinned'
  /** a check failed, or the data cannot be proven complete (nothing signed vouches for its scope) */
  | 'broken'
  /** the check could not be made: the appliance or a file could not be read, no key to check with */
  | 'cannot-check';

export const EXIT_STATUS: Record<Verdict, number> = {
  verified: 0,
  broken: 1,
  'cannot-check': 3,
  'verified-unpinned': 4,
};

/** The verdict's words, first on the verifier's last line and in the dashboard's result title. */
export const VERDICT_WORDS: Record<Verdict, string> = {
  verified: 'verified',
  'verified-unpinned': 'verified with an unpinned key',
  broken: 'BROKEN OR INCOMPLETE',
  'cannot-check': 'could not check',
};

/** The worse of two verdicts: broken over could-not-check over unpinned over verified. */
export function worse(a: Verdict, b: Verdict): Verdict {
  const rank: Verdict[] = ['broken', 'cannot-check', 'verified-unpinned', 'verified'];
  return rank[Math.min(rank.indexOf(a), rank.indexOf(b))];
}
