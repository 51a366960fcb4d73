import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { openDatabase, type Db } from '../../src/server/db/open.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { auditSpec, listAudit } from '../../src/server/governance/audit-trail.js';
import { normalizeFilters } from '../../src/server/governance/filters.js';
import { explainPage } from '../../src/server/governance/keyset.js';
import type { AuditQuery } from '../../src/contract/index.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * With several equality filters, the rarest value drives the scan (keyset.ts): a service with
 * thousands of entries and outcome=denied reads the few denied entries, not all of the service's.
 */
const BASE = Date.parse('2026-05-01T00:00:00Z');
let dir: string;
let db: Db;
const rows: AuditSeed[] = [];

beforeAll(() => {
  dir = tempDir('aa-audit-driver');
  db = openDatabase(dir);
  for (let i = 0; i < 6000; i++) {
    const denied = i % 1500 === 7;
    rows.push({
      actor: { subject: i % 3 ? 'svc-busy' : 'alice', role: denied ? 'auditor' : 'it_admin' },
      action: i % 2 ? 'connector.ingest' : 'channel.update',
      target: { type: 'x', id: null },
      outcome: denied ? 'denied' : 'success',
      status: denied ? 403 : 200,
      request_id: `req_${i}`,
      source_ip: null,
      at_ms: BASE + i * 1000,
    });
  }
  insertAuditBatch(db, rows);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const page = (q: Partial<AuditQuery>) =>
  listAudit(db, { limit: 500, ...q } as AuditQuery).data.map((e) => e.request_id);
const expected = (keep: (r: AuditSeed) => boolean) =>
  rows
    .filter(keep)
    .map((r) => r.request_id)
    .reverse();

describe('the driving index', () => {
  it('is the rare outcome, not the busy actor, and the page is still exact', () => {
    const q = { actor: 'svc-busy', outcome: 'denied' } as const;
    const [plan] = explainPage(db, auditSpec, normalizeFilters(auditSpec, q), { limit: 101, dir: 'desc' });
    expect(plan).toMatch(/USING (COVERING )?INDEX audit_outcome_at/);
    expect(page(q)).toEqual(expected((r) => r.actor.subject === 'svc-busy' && r.outcome === 'denied'));
  });

  it('stays the actor when the actor is the rarer one', () => {
    db.prepare("UPDATE audit SET actor_subject = 'rare' WHERE request_id IN ('req_1', 'req_2')").run();
    const q = { actor: 'rare', outcome: 'success' } as const;
    const [plan] = explainPage(db, auditSpec, normalizeFilters(auditSpec, q), { limit: 101, dir: 'desc' });
    expect(plan).toMatch(/INDEX audit_actor_at/);
    expect(page(q)).toEqual(['req_2', 'req_1']);
  });

  it('pages through a driven scan with the cursor, without gaps or repeats', () => {
    const q = { action: 'connector.ingest', actor: 'alice' } as const;
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const p = listAudit(db, { limit: 100, ...q, ...(after ? { after } : {}) } as AuditQuery);
      seen.push(...p.data.map((e) => e.request_id));
      after = p.next_cursor ?? undefined;
    } while (after);
    expect(seen).toEqual(
      expected(
        (r) =>
          r.action === 'connector.ingest' && r.actor.subject === 'alice' && !['req_1', 'req_2'].includes(r.request_id),
      ),
    );
  });
});
