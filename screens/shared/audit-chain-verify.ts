/** `V` on the audit screen: the whole trail verified as `audit verify --url` does, with progress. */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Checkpoint } from '../../src/audit-verify/checkpoint.js';
import type { VerifyReport } from '../../src/audit-verify/verify-trail.js';
import { displayFingerprint } from '../../src/text/fingerprint.js';
import type { ActionContext, ScreenAction } from '../../src/ui/screen-api.js';
import type { ChainMemory } from './audit-chain-memory.js';
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
    run: (ctx) => withTempDir((dir) => verifyWholeTrail(ctx, join(dir, 'audit.jsonl'))),
  };
}

/**
 * The action context downloads to a file, not into a stream: the export goes to a private
 * temporary folder (0700, the file 0600), is verified from there, and is removed either way.
 */
async function withTempDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  // not loaded with the dashboard (see screens/shared/history/export.ts): a verify is rare
  const { mkdtemp, rm } = process.getBuiltinModule('node:fs/promises');
  const { tmpdir } = process.getBuiltinModule('node:os');
  const dir = await mkdtemp(join(tmpdir(), 'aa-verify-'));
  try {
    return await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function verifyWholeTrail(ctx: ActionContext, file: string) {
  // the verifier needs node:crypto, which the dashboard loads only when it is used
  const { parseCheckpointFile } = await import('../../src/audit-verify/checkpoint.js');
  const { readTrail } = await import('../../src/audit-verify/read-trail.js');
  const { verifyTrail } = await import('../../src/audit-verify/verify-trail.js');
  const { exportScope } = await import('../../src/audit-verify/export-scope.js');
  const { signedCheckpoints } = await import('../../src/audit-verify/served-checkpoints.js');
  const { dashboardKeys } = await import('./audit-chain-check.js');
  const { keepCheckpoint, memoryOf, rememberVerify } = await import('./audit-chain-memory.js');
  const p = ctx.progress({ title: 'Verifying the audit trail', lines: ['waiting for the appliance…'] });
  let report: VerifyReport;
  let head: Checkpoint | undefined;
  let memory: ChainMemory;
  try {
    const served = await servedCheckpoints(ctx, p.signal);
    const keys = dashboardKeys(served.publicKeys);
    memory = memoryOf([...keys.keys()]);
    // as audit verify --url: every checkpoint the appliance signed before must still match its entry
    const { signed, findings: badSignatures } = signedCheckpoints(served.checkpoints, keys);
    const expected = signed[0]?.seq ?? null;
    const of = expected === null ? '' : ` of ${n(expected)}`;
    const got = await ctx.download(
      'exportAudit',
      { format: 'jsonl' },
      file,
      (pr) =>
        p.update({
          lines: [`received ${n(pr.lines)}${of} entries`],
          ...(expected ? { fraction: Math.min(1, pr.lines / expected) / 2 } : {}),
        }),
      p.signal,
    );
    const parsed = got.auditChain.checkpoint ? parseCheckpointFile(got.auditChain.checkpoint) : undefined;
    head = parsed && typeof parsed !== 'string' ? parsed.checkpoint : undefined;
    const total = got.lines;
    report = await verifyTrail(readTrail(createReadStream(file, { highWaterMark: 1 << 20 })), {
      checkpoint: head,
      publicKeyPem: head ? keys.get(head.key_fingerprint) : undefined,
      scope: exportScope(got.auditChain.filtered === 'true'),
      signed,
      // the newest checkpoint this dashboard saw proved, as audit verify --since takes one kept earlier
      ...(memory.kept ? { since: memory.kept } : {}),
      onProgress: (done) =>
        p.update({
          lines: [`verified ${n(done)} of ${n(total)} entries`],
          fraction: 0.5 + Math.min(1, done / Math.max(1, total)) / 2,
        }),
    });
    report.findings.push(...badSignatures);
    report.ok = report.findings.length === 0;
  } catch (err) {
    if (p.signal.aborted)
      return {
        title: 'Verify stopped',
        tone: 'warn' as const,
        summary: ['You stopped the verify: nothing was found.'],
      };
    throw err;
  } finally {
    p.close();
  }
  const since = memory.kept;
  rememberVerify(
    memory,
    report.ok
      ? { ok: true, lastSeq: report.lastSeq ?? 0, at: Date.now() }
      : { ok: false, lastSeq: report.lastSeq ?? 0, at: Date.now(), finding: report.findings[0] },
  );
  if (!report.ok)
    return {
      title: 'CHAIN BROKEN',
      tone: 'bad' as const,
      summary: [`${report.findings.length} finding${report.findings.length === 1 ? '' : 's'}:`, ...report.findings],
    };
  // proved from #1 to the head, through the one kept before: the head is the checkpoint kept now
  keepCheckpoint(memory, head!);
  return {
    title: 'Audit trail verified',
    tone: 'ok' as const,
    summary: [
      `verified: entries #${n(report.firstSeq ?? 0)}–#${n(report.lastSeq ?? 0)} complete and unaltered; ` +
        `checkpoint #${n(head!.seq)} signed by key ${displayFingerprint(head!.key_fingerprint)}; ` +
        'the key was served by the appliance (pin it with audit verify --key)',
      ...(since ? [`the trail still holds checkpoint #${n(since.seq)}, kept by this dashboard earlier`] : []),
      ...report.notes,
    ],
  };
}

/** Every checkpoint the appliance lists (newest first, as served) and its public keys, page by page. */
async function servedCheckpoints(ctx: ActionContext, signal: AbortSignal) {
  const checkpoints: unknown[] = [];
  const publicKeys: unknown[] = [];
  let after: string | undefined;
  do {
    const page = await ctx.call('listAuditCheckpoints', { query: { limit: 500, ...(after ? { after } : {}) }, signal });
    checkpoints.push(...page.data);
    publicKeys.push(...page.public_keys);
    after = page.has_more && page.next_cursor ? page.next_cursor : undefined;
  } while (after);
  return { checkpoints, publicKeys };
}
