/** `V` on the audit screen: the whole trail verified as `audit verify --url` does, with progress. */
import type { Checkpoint } from '../../audit-chain/checkpoint.js';
import type { Verdict } from '../../audit-chain/verdict.js';
import type { VerifyReport } from '../../audit-chain/verify-trail.js';
import type { ActionContext, ScreenAction, Tone } from '../kit/screen-api.js';
import { thousands } from '../../text/thousands.js';

const n = thousands;

export function verifyTrailAction<Row>(): ScreenAction<Row> {
  return {
    key: 'V',
    label: 'verify chain',
    hintShort: 'verify',
    mutates: false,
    // what an auditor opens the audit screen for: on an 80-column hint line before the paging keys
    hintPriority: 65,
    capability: 'audit.export',
    run: (ctx) => verifyWholeTrail(ctx),
  };
}

/** The result's title and tone by verdict: the verdict's words (as every verifier says them) first. */
const RESULT: Record<Verdict, { title: (words: string) => string; tone: Tone }> = {
  verified: { title: (w) => `Audit trail ${w}`, tone: 'ok' },
  // proof only if the key is the appliance's: not a failure, not yet the pinned answer either
  'verified-unpinned': { title: (w) => `Audit trail ${w}`, tone: 'warn' },
  broken: { title: () => 'CHAIN BROKEN', tone: 'bad' },
  'cannot-check': { title: (w) => `Audit trail: ${w}`, tone: 'warn' },
};

const PIN_HINT =
  'pin the key: appliance-admin audit key --url … -o appliance.pem, compare its fingerprint out of band, then ' +
  "set the appliance's audit-key in the config (or --audit-key appliance.pem)";

/**
 * Streams the appliance's export into the verifier as it arrives: nothing is written to disk, and
 * the verify is bounded as the CLI's is (src/audit-chain/live.ts). With an audit key pinned for
 * this appliance (ctx.auditKey), only that key is trusted, as `audit verify --key` trusts it.
 */
async function verifyWholeTrail(ctx: ActionContext) {
  // the verifier needs node:crypto, which the dashboard loads only when it is used
  const { verifyLive, LiveRefusal } = await import('../../audit-chain/live.js');
  const { keysByFingerprint } = await import('../../audit-chain/checkpoint.js');
  const { keepCheckpoint, memoryOf, rememberVerify } = await import('../../audit-chain/memory.js');
  const { trustOfPem } = await import('../../audit-chain/pinned-keys.js');
  const { VERDICT_WORDS } = await import('../../audit-chain/verdict.js');
  const result = (verdict: Verdict, summary: string[]) => ({
    title: RESULT[verdict].title(VERDICT_WORDS[verdict]),
    tone: RESULT[verdict].tone,
    summary,
  });
  const pinned = ctx.auditKey ? trustOfPem(ctx.auditKey) : undefined;
  if (typeof pinned === 'string') return result('cannot-check', [pinned, 'nothing was verified']);
  const p = ctx.progress({ title: 'Verifying the audit trail', lines: ['waiting for the appliance…'], escStops: true });
  let report: VerifyReport & { head: Checkpoint | null };
  let keys: string[] = [];
  // the checkpoint this verify compared with: the page checks may keep a newer one while it runs
  let since: Checkpoint | null = null;
  try {
    const first = (await ctx.served('listAuditCheckpoints', { query: { limit: 1 }, signal: p.signal })) as {
      public_keys?: unknown;
    } | null;
    keys = [...keysByFingerprint(Array.isArray(first?.public_keys) ? first.public_keys : [], 100).keys()];
    since = memoryOf(keys).kept;
    report = await verifyLive(
      {
        newestCheckpoint: (signal) => ctx.served('listAuditCheckpoints', { query: { limit: 1 }, signal }),
        exportJsonl: (signal) => ctx.stream('exportAudit', { format: 'jsonl' }, signal),
      },
      {
        ...(pinned ? { pinned } : {}),
        // the newest checkpoint this dashboard saw proved, as audit verify --since takes one kept earlier
        ...(since ? { since } : {}),
        signal: p.signal,
        // the total is the count the appliance signed: what arrives beyond it is not counted (live.ts)
        onProgress: (done, total) =>
          p.update({
            lines: [
              `verified ${n(total === null ? done : Math.min(done, total))}${total === null ? '' : ` of ${n(total)}`} entries`,
            ],
            ...(total ? { fraction: Math.min(1, done / total) } : {}),
          }),
      },
    );
  } catch (err) {
    if (p.signal.aborted)
      return {
        title: 'Verify stopped',
        tone: 'warn' as const,
        summary: ['You stopped the verify: nothing was found.'],
      };
    if (err instanceof LiveRefusal) {
      // the appliance refuses its own trail, or sent more than it signed: a break, for the rest of the run;
      // an export too slow to arrive is not one
      if (err.verdict === 'broken')
        rememberVerify(memoryOf(keys), { verdict: 'broken', lastSeq: 0, at: Date.now(), finding: err.message });
      return result(err.verdict, [`${VERDICT_WORDS[err.verdict]}: ${err.message}`]);
    }
    throw err;
  } finally {
    p.close();
  }
  const memory = memoryOf(keys);
  const failed = report.findings[0] ?? report.unknowns[0];
  rememberVerify(memory, {
    verdict: report.verdict,
    lastSeq: report.lastSeq ?? 0,
    at: Date.now(),
    ...(failed ? { finding: failed } : {}),
  });
  const lines = [
    ...report.findings,
    ...report.unknowns.map((u) => `could not check: ${u}`),
    ...(report.proven ? [`${VERDICT_WORDS[report.verdict]}: ${report.proven}`] : []),
    ...(since && report.proven
      ? [`the trail still holds checkpoint #${n(since.seq)}, kept by this dashboard earlier`]
      : []),
    ...report.notes,
    ...(report.verdict === 'verified-unpinned' ? [PIN_HINT] : []),
  ];
  if (report.verdict === 'broken') {
    const count = report.findings.length;
    return result('broken', [`${VERDICT_WORDS.broken}: ${count} finding${count === 1 ? '' : 's'}:`, ...lines]);
  }
  if (report.verdict === 'cannot-check') return result('cannot-check', lines);
  // proved from #1 to the head, through the one kept before: the head's signed checkpoint is kept now
  if (report.head) keepCheckpoint(memory, report.head);
  return result(report.verdict, lines);
}
