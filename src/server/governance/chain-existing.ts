import type { Db } from '../db/sqlite-driver.js';
import { iso, newId } from '../ids.js';
import { auditSpec, toAuditEntry } from './audit-trail.js';
import type { Row } from './keyset.js';
import { entryHash, GENESIS_HASH } from '../../audit-chain/canonical.js';
import { insertLinked, type ChainHead } from '../audit-chain/chain.js';

const BATCH = 5000;

/**
 * Migration 6, a step the audit trail owns (src/server/db/migrations.ts calls it): links the entries written before the chain existed, in seq order, each hashed as
 * the API serves it; then, when there were any, records that it did so as a chained entry of its
 * own. Gaps in seq are left as they are: a verifier reports them as missing entries, which they
 * are. Returns the new head, for the caller to tally its entry.
 */
export function chainExisting(db: Db): ChainHead | null {
  const read = db.prepare(`SELECT ${auditSpec.select} FROM audit WHERE seq > ? ORDER BY seq LIMIT ${BATCH}`).raw(true);
  const update = db.prepare('UPDATE audit SET prev_hash = ?, hash = ? WHERE seq = ?');
  let head: ChainHead = { seq: 0, hash: GENESIS_HASH };
  let entries = 0;
  for (;;) {
    const rows = read.all(head.seq) as Row[];
    for (const row of rows) {
      const entry = { ...toAuditEntry(row), prev_hash: head.hash };
      const { hash: _, ...unhashed } = entry;
      const hash = entryHash(unhashed);
      update.run(head.hash, hash, entry.seq);
      head = { seq: entry.seq, hash };
      entries++;
    }
    if (rows.length < BATCH) break;
  }
  if (entries === 0) return null;
  const now = Date.now();
  return insertLinked(
    db,
    [
      {
        id: newId('aud'),
        at: iso(now),
        at_ms: now,
        actor_subject: 'system',
        actor_role: null,
        action: 'audit.chain.migrate',
        target_type: 'audit',
        target_id: null,
        target_name: null,
        outcome: 'success',
        status: 200,
        request_id: newId('req'),
        source_ip: null,
        details: JSON.stringify({ entries }),
      },
    ],
    head,
    { tree: false },
  );
}
