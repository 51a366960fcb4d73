/** `V` on the audit screen: the whole trail verified as `audit verify --url` does, with progress. */
import type { Checkpoint } from '../../src/audit-chain/checkpoint.js';
import type { VerifyReport } from '../../src/audit-chain/verify-trail.js';
import type { ActionContext, ScreenAction } from '../../src/ui/screen-api.js';
import { thousands } from '../../src/text/thousands.js';

const n = thousands;

export function verifyTrailAction<Row>(): ScreenAction<Row> {
  return {
    key: 'V',
    label: 'verify chain',
    mutates: false,
    // what an auditor opens the audit screen for: on an 80-column hint line before the paging keys
    hintPriority: 65,
    capability: 'audit.export',
    run: (ctx) => verifyWholeTrail(ctx),
  };
}

/**
 * Streams the appliance's export into the verifier as it arrives: nothing is written to disk, and
 * the verify is bounded as the CLI's is (src/audit-chain/live.ts).
 */
async function verifyWholeTrail(ctx: ActionContext) {
  // the verifier needs node:crypto, which the dashboard loads only when it is used
  const { verifyLive, LiveRefusal } = await import('../../src/audit-chain/live.js');
  const { keysByFingerprint } = await import('../../src/audit-chain/checkpoint.js');
  const { keepCheckpoint, memoryOf, rememberVerify } = await import('../../src/audit-chain/memory.js');
  const { VERDICT_WORDS } = await import('../../src/audit-chain/verdict.js');
  const p = ctx.progress({ title: 'Verifying the audit trail', lines: ['waiting for the appliance…'] });
  let report: VerifyReport & { head: Checkpoint | null };
  let keys: string[] = [];
  try {
    const first = (await ctx.served('listAuditCheckpoints', { query: { limit: 1 }, signal: p.signal })) as {
      public_keys?: unknown;
    } | null;
    keys = [...keysByFingerprint(Array.isArray(first?.public_keys) ? first.public_keys : [], 100).keys()];
    const memory = memoryOf(keys);
    report = await verifyLive(
      {
        checkpointPage: (after, signal) =>
          ctx.served('listAuditCheckpoints', { query: { limit: 500, ...(after ? { after } : {}) }, signal }),
        exportJsonl: (signal) => ctx.stream('exportAudit', { format: 'jsonl' }, signal),
      },
      {
        // the newest checkpoint this dashboard saw proved, as audit verify --since takes one kept earlier
        ...(memory.kept ? { since: memory.kept } : {}),
        signal: p.signal,
        onProgress: (done, total) =>
          p.update({
            lines: [`verified ${n(done)}${total === null ? '' : ` of ${n(total)}`} entries`],
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
    if (err instanceof LiveRefusal)
      return { title: VERDICT_WORDS.broken, tone: 'bad' as const, summary: [err.message] };
    throw err;
  } finally {
    p.close();
  }
  const memory = memoryOf(keys);
  const since = memory.kept;
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
    ...(report.verdict === 'verified-unpinned'
      ? [
          'pin the key: audit key --url … -o appliance.pem, compare its fingerprint out of band, then audit-key in the config',
        ]
      : []),
  ];
  if (report.verdict === 'broken')
    return {
      title: 'CHAIN BROKEN',
      tone: 'bad' as const,
      summary: [`${report.findings.length} finding${report.findings.length === 1 ? '' : 's'}:`, ...lines],
    };
  if (report.verdict === 'cannot-check')
    return { title: 'Could not check the audit trail', tone: 'warn' as const, summary: lines };
  // proved from #1 to the head, through the one kept before: the head's signed checkpoint is kept now
  if (report.head) keepCheckpoint(memory, report.head);
  return { title: 'Audit trail verified', tone: 'ok' as const, summary: lines };
}
