import { CHAIN_REFUSED_CODE } from '../contract/common.js';
import { thousands } from '../text/thousands.js';
import { asCheckpoint, checkpointSignatureValid, keysByFingerprint, type Checkpoint } from './checkpoint.js';
import { readTrail } from './read-trail.js';
import { signedCheckpoints } from './served-checkpoints.js';
import { asSignedStatement } from './statement.js';
import { claimOf, verdictOf, verifyTrail, type Trust, type VerifyReport } from './verify-trail.js';
import type { Verdict } from './verdict.js';

/**
 * How a live verify reads the appliance: the CLI over its streaming connection, the dashboard over
 * its client. Answers as they came off the wire: parsed JSON, never sanitized text.
 */
export interface LiveSource {
  /** GET /audit/checkpoints?limit=1: the newest checkpoint and the public keys, parsed */
  newestCheckpoint(signal: AbortSignal): Promise<unknown>;
  /** GET /audit/export?format=jsonl: a response header by (lower-case) name, and the body's bytes */
  exportJsonl(signal: AbortSignal): Promise<{ header(name: string): string | undefined; body: AsyncIterable<Buffer> }>;
}

export interface LiveOptions {
  /** keys given out of band (--key, the config's audit-key); without them, the keys the appliance serves */
  pinned?: Trust;
  /** a checkpoint kept from an earlier visit (--since, the dashboard's kept one) */
  since?: Checkpoint;
  signal?: AbortSignal;
  /** entries received so far, of `total` (the signed count) when known */
  onProgress?: (received: number, total: number | null) => void;
}

/** Bytes an export may take per signed entry (entries are a few hundred), beyond a fixed allowance. */
const BYTES_PER_ENTRY = 64 * 1024;
const BYTES_ALLOWANCE = 16 * 1024 * 1024;
/** The whole export must arrive within this, plus a millisecond per signed entry. */
const DEADLINE_BASE_MS = 120_000;

/** A live verify that ended before its checks could: its verdict (the appliance refused, sent more than it signed, or too slowly). */
export class LiveRefusal extends Error {
  override name = 'LiveRefusal';
  constructor(
    message: string,
    readonly verdict: Verdict,
  ) {
    super(message);
  }
}

/**
 * Verifies the appliance's live trail as `audit verify --url` and the dashboard's V do: the newest
 * checkpoint it lists (read first), then the whole trail exported and checked as it streams against
 * the export's signed statement, that checkpoint and a kept one. The newest checkpoint is enough of
 * the list: a rewrite of any entry changes every hash after it, the newest checkpoint's included, and
 * a cut tail leaves it beyond the export's head. Nothing unsigned bounds the reading: the statement's
 * signature is checked before its count sets the bytes and the time the export may take, and an
 * export nothing signed is not read at all.
 */
export async function verifyLive(
  source: LiveSource,
  o: LiveOptions = {},
): Promise<VerifyReport & { head: Checkpoint | null }> {
  const outer = o.signal ?? new AbortController().signal;
  const list = (await source.newestCheckpoint(outer)) as Record<string, unknown> | null;
  if (!list || !Array.isArray(list.data))
    throw new LiveRefusal('the checkpoint list is not a list (no data)', 'broken');
  const trust: Trust = o.pinned ?? {
    keys: keysByFingerprint(Array.isArray(list.public_keys) ? list.public_keys : [], 100),
    pinned: false,
    source: 'the keys the appliance serves',
  };
  const listed = signedCheckpoints(list.data.slice(0, 1), trust);
  const deadline = new AbortController();
  const signal = AbortSignal.any([outer, deadline.signal]);
  let res: Awaited<ReturnType<LiveSource['exportJsonl']>>;
  try {
    res = await source.exportJsonl(signal);
  } catch (err) {
    // the appliance itself says its trail does not extend what it signed: that is the verdict
    const e = err as { code?: unknown; detail?: unknown };
    if (e?.code === CHAIN_REFUSED_CODE)
      throw new LiveRefusal(String(e.detail ?? 'the appliance will not sign its trail'), 'broken');
    throw err;
  }
  const statement = parseHeader(res.header('audit-export-statement'), asSignedStatement);
  const head = parseHeader(res.header('audit-checkpoint'), asCheckpoint);
  const checkpoint = statement ? null : head;
  const options = { statement, checkpoint, trust, asked: {}, since: o.since, signed: listed.signed };
  const signed = claimOf(options);
  if (!signed.claim) {
    // nothing verified says how much to read: the verdict is already known, and the export is not read (the
    // request is aborted, so that its connection closes rather than waits for an end that may never come)
    deadline.abort();
    await stop(res.body);
    const report = await verifyTrail([], options);
    report.notes.push('the export was not read: nothing the appliance signed says what it holds');
    return finish(report, listed, null, trust.pinned);
  }
  const count = signed.claim.count;
  const maxBytes = BYTES_ALLOWANCE + count * BYTES_PER_ENTRY;
  const timer = setTimeout(() => deadline.abort(), DEADLINE_BASE_MS + count);
  timer.unref?.();
  let received = 0;
  try {
    const format: { value?: 'jsonl' | 'csv' } = {};
    const report = await verifyTrail(readTrail(capped(res.body, maxBytes), format), {
      ...options,
      format,
      onProgress: (entries) => {
        received = entries;
        o.onProgress?.(Math.min(entries, count), count);
      },
    });
    o.onProgress?.(Math.min(report.entries, count), count);
    const signedHead =
      head &&
      report.claim &&
      head.seq === report.claim.head.seq &&
      head.hash === report.claim.head.hash &&
      trust.keys.has(head.key_fingerprint) &&
      checkpointSignatureValid(head, trust.keys.get(head.key_fingerprint)!)
        ? head
        : null;
    return finish(report, listed, signedHead, trust.pinned);
  } catch (err) {
    if (deadline.signal.aborted && !outer.aborted)
      throw new LiveRefusal(
        `the appliance did not send its export in time (${thousands(received)} of ${thousands(count)} entries ` +
          'received): stopped',
        'cannot-check',
      );
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The report with the listed checkpoint's findings, its verdict made again. */
function finish(
  report: VerifyReport,
  listed: { findings: string[]; unknowns: string[] },
  head: Checkpoint | null,
  pinned: boolean,
): VerifyReport & { head: Checkpoint | null } {
  report.findings.push(...listed.findings);
  report.unknowns.push(...listed.unknowns);
  report.verdict = verdictOf(report.findings, report.unknowns, pinned);
  if (report.verdict !== 'verified' && report.verdict !== 'verified-unpinned') report.proven = null;
  return { ...report, head };
}

async function stop(body: AsyncIterable<Buffer>): Promise<void> {
  await body[Symbol.asyncIterator]()
    .return?.()
    .catch(() => undefined);
}

function parseHeader<T>(text: string | undefined, as: (v: unknown) => T | string): T | null {
  if (!text) return null;
  try {
    const v = as(JSON.parse(text));
    return typeof v === 'string' ? null : v;
  } catch {
    return null;
  }
}

/** The body's chunks, refused past `max` bytes: an export larger than its signed count allows. */
async function* capped(body: AsyncIterable<Buffer>, max: number): AsyncGenerator<Buffer> {
  let n = 0;
  for await (const chunk of body) {
    n += chunk.length;
    if (n > max)
      throw new LiveRefusal(
        `the export is larger than its signed count allows (over ${thousands(max)} bytes): refused`,
        'broken',
      );
    yield chunk;
  }
}
