import type { Db } from '../db/sqlite-driver.js';
import { entryHash, GENESIS_HASH } from '../../audit-chain/canonical.js';
import { thousands } from '../../text/thousands.js';
import { auditSpec, toAuditEntry } from '../governance/audit-trail.js';
import type { Row } from '../governance/keyset.js';
import type { ChainHead } from './chain.js';

const n = thousands;

/** The trail does not extend the last checkpoint the appliance signed: it will not sign its head. */
export class ChainRefused extends Error {
  override name = 'ChainRefused';
  constructor(
    readonly base: ChainHead,
    problem: string,
  ) {
    super(problem);
  }
}

/**
 * Why the trail up to `head` does not extend `base` (the last head this appliance signed), or null
 * when it does: the entry at base.seq still has base.hash and its contents still hash to it, and every
 * entry after it is the next seq, links to the one before and recomputes to its hash. Reads only the
 * entries since `base`.
 */
export function chainProblem(db: Db, base: ChainHead, head: ChainHead): string | null {
  if (head.seq < base.seq) return `the trail ends at #${n(head.seq)}, before #${n(base.seq)}: entries were removed`;
  let prev = base.seq === 0 ? { seq: 0, hash: GENESIS_HASH } : null;
  const rows = db
    .prepare(`SELECT ${auditSpec.select} FROM audit WHERE seq >= ? ORDER BY seq`)
    .raw(true)
    .iterate(base.seq) as IterableIterator<Row>;
  for (const row of rows) {
    const e = toAuditEntry(row);
    const { hash, ...rest } = e;
    if (prev === null) {
      // the signed entry itself: still its hash, and still the contents that hash covers
      if (e.seq !== base.seq || hash !== base.hash || entryHash(rest) !== hash) {
        rows.return?.();
        return e.seq !== base.seq
          ? `entry #${n(base.seq)} is gone`
          : `entry #${n(base.seq)} is not what this appliance signed: the trail was rewritten`;
      }
      prev = { seq: e.seq, hash };
      continue;
    }
    const problem =
      e.seq !== prev.seq + 1
        ? `entries #${n(prev.seq + 1)}–#${n(e.seq - 1)} are missing`
        : e.prev_hash !== prev.hash
          ? `entry #${n(e.seq)} does not link to #${n(prev.seq)}`
          : entryHash(rest) !== hash
            ? `entry #${n(e.seq)} does not match its hash: it was altered`
            : null;
    if (problem) {
      rows.return?.();
      return problem;
    }
    prev = { seq: e.seq, hash };
  }
  if (prev === null) return `entry #${n(base.seq)} is gone`;
  if (prev.seq !== head.seq) return `the trail's head #${n(head.seq)} was not reached`;
  return null;
}
