import { CHAIN_REFUSED_CODE } from '../contract/common.js';
import { thousands } from '../text/thousands.js';
import { asCheckpoint, checkpointSignatureValid, keysByFingerprint, type Checkpoint } from './checkpoint.js';
import { readTrail } from './read-trail.js';
import { MAX_CHECKPOINTS, signedCheckpoints } from './served-checkpoints.js';
import { asSignedStatement } from './statement.js';
import { verifyTrail, type Trust, type VerifyReport } from './verify-trail.js';
import type { Verdict } from './verdict.js';

/**
 * How a live verify reads the appliance: the CLI over its streaming connection, the dashboard over
 * its client. Answers as they came off the wire: parsed JSON, never sanitized text.
 */
export interface LiveSource {
  /** one page of GET /audit/checkpoints (limit 500, after the cursor), parsed */
  checkpointPage(after: string | undefined, signal: AbortSignal): Promise<unknown>;
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

/**
 * A checkpoint page loop's bound beyond MAX_CHECKPOINTS: a cursor that repeats, or pages that
 * never end, stop it.
 */
const MAX_PAGES = Math.ceil(MAX_CHECKPOINTS / 500) + 1;
/** Bytes an export may take per signed entry (entries are a few hundred), beyond a fixed allowance. */
const BYTES_PER_ENTRY = 64 * 1024;
const BYTES_ALLOWANCE = 16 * 1024 * 1024;
/** The whole export must arrive within this, plus a millisecond per signed entry. */
const DEADLINE_BASE_MS = 120_000;

export class LiveRefusal extends Error {
  override name = 'LiveRefusal';
}

/**
 * Verifies the appliance's live trail as `audit verify --url` and the dashboard's V do: every
 * checkpoint it lists (read first, bounded), then the whole trail exported and checked as it
 * streams against the export's signed statement, the listed checkpoints and a kept one. Bounded
 * against a hostile appliance: the checkpoints it lists, the bytes and entries beyond what it
 * signed, and the time the export may take.
 */
export async function verifyLive(
  source: LiveSource,
  o: LiveOptions = {},
): Promise<VerifyReport & { head: Checkpoint | null }> {
  const outer = o.signal ?? new AbortController().signal;
  const served = await servedCheckpoints(source, outer);
  const trust: Trust = o.pinned ?? {
    keys: keysByFingerprint(served.publicKeys, 100),
    pinned: false,
    source: 'the keys the appliance serves',
  };
  const listed = signedCheckpoints(served.checkpoints, trust);
  const deadline = new AbortController();
  const signal = AbortSignal.any([outer, deadline.signal]);
  let res: Awaited<ReturnType<LiveSource['exportJsonl']>>;
  try {
    res = await source.exportJsonl(signal);
  } catch (err) {
    // the appliance itself says its trail does not extend what it signed: that is the verdict
    const e = err as { code?: unknown; detail?: unknown };
    if (e?.code === CHAIN_REFUSED_CODE)
      throw new LiveRefusal(String(e.detail ?? 'the appliance will not sign its trail'));
    throw err;
  }
  const statement = parseHeader(res.header('audit-export-statement'), asSignedStatement);
  const head = parseHeader(res.header('audit-checkpoint'), asCheckpoint);
  const checkpoint = statement ? null : head;
  const count = statement?.statement.count ?? checkpoint?.seq ?? null;
  const maxBytes = count === null ? Infinity : BYTES_ALLOWANCE + count * BYTES_PER_ENTRY;
  const timer = setTimeout(() => deadline.abort(), DEADLINE_BASE_MS + (count ?? 1_000_000));
  timer.unref?.();
  let received = 0;
  try {
    const format: { value?: 'jsonl' | 'csv' } = {};
    const report = await verifyTrail(readTrail(capped(res.body, maxBytes), format), {
      statement,
      format,
      checkpoint,
      trust,
      asked: {},
      since: o.since,
      signed: listed.signed,
      onProgress: (entries) => {
        received = entries;
        o.onProgress?.(Math.min(entries, count ?? entries), count);
      },
    });
    report.findings.push(...listed.findings);
    report.unknowns.push(...listed.unknowns);
    report.verdict = verdictOf(report);
    o.onProgress?.(Math.min(report.entries, count ?? report.entries), count);
    const signedHead =
      head &&
      report.claim &&
      head.seq === report.claim.head.seq &&
      head.hash === report.claim.head.hash &&
      trust.keys.has(head.key_fingerprint) &&
      checkpointSignatureValid(head, trust.keys.get(head.key_fingerprint)!)
        ? head
        : null;
    return { ...report, head: signedHead };
  } catch (err) {
    if (deadline.signal.aborted && !outer.aborted)
      throw new LiveRefusal(
        `the appliance did not send its export in time (${thousands(received)} entries received): stopped`,
      );
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function verdictOf(r: VerifyReport): Verdict {
  if (r.findings.length) return 'broken';
  if (r.unknowns.length) return 'cannot-check';
  return r.verdict;
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
      );
    yield chunk;
  }
}

/** Every checkpoint the appliance lists (newest first, paged) and its public keys, bounded. */
async function servedCheckpoints(source: LiveSource, signal: AbortSignal) {
  const checkpoints: unknown[] = [];
  const publicKeys: unknown[] = [];
  const cursors = new Set<string>();
  let after: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_PAGES || checkpoints.length >= MAX_CHECKPOINTS)
      throw new LiveRefusal(
        `the appliance lists more than ${thousands(MAX_CHECKPOINTS)} checkpoints: not read further`,
      );
    const body = (await source.checkpointPage(after, signal)) as Record<string, unknown> | null;
    const items = body?.data;
    if (!Array.isArray(items)) throw new LiveRefusal('the checkpoint list is not a list (no data)');
    checkpoints.push(...items.slice(0, 500));
    if (page === 0 && Array.isArray(body!.public_keys)) publicKeys.push(...body!.public_keys.slice(0, 100));
    const next = body!.next_cursor;
    if (typeof next !== 'string' || body!.has_more === false) break;
    if (cursors.has(next)) throw new LiveRefusal('the checkpoint list pages in a circle: not read further');
    cursors.add(next);
    after = next;
  }
  return { checkpoints, publicKeys };
}
