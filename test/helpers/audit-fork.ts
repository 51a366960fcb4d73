import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { tempDir } from './fixtures.js';
import { startTestServer, type TestServer } from './server.js';

/**
 * The tamper suite's fork (issue 40 §4), as the CLI's and the dashboard's tests set it up: one
 * appliance's data directory with a signed history, copied, each copy served by its own server and
 * signing with the same key from then on, so that one can show the true trail and the other a forged one.
 */

/** `n` audit entries by `subject` (revocations of keys named after it), for insertAuditBatch. */
export const auditSeeds = (n: number, subject: string): AuditSeed[] =>
  Array.from({ length: n }, (_, i) => ({
    actor: { subject, role: 'it_admin' },
    action: 'gateway.key.revoke',
    target: { type: 'gateway_key', id: `gk_${subject}_${i}` },
    outcome: 'success',
    status: 200,
    request_id: `req_${subject}${i}`,
    source_ip: null,
  }));

/** A checkpoint of the trail's head, signed now (a seal's), and its tree size. */
export async function seal(srv: TestServer): Promise<number> {
  const r = await srv.call('POST', '/audit/seal', {
    role: 'auditor',
    body: { sha256: 'cd'.repeat(32), purpose: 'evidence-pack' },
  });
  expect(r.status).toBe(201);
  return r.json.checkpoint.tree_size as number;
}

interface ForkedPair {
  /** holds truth/ and forged/, the two data directories */
  dir: string;
  truth: TestServer;
  forged: TestServer;
}

/** Two servers on copies of one data directory holding `entries` entries, sealed: the histories agree so far. */
export async function startForkedPair(label: string, entries: number): Promise<ForkedPair> {
  const dir = tempDir(label);
  const first = await startTestServer({ dataDir: join(dir, 'truth') });
  insertAuditBatch(first.server.db, auditSeeds(entries, 'before'));
  await seal(first);
  await first.close();
  cpSync(join(dir, 'truth'), join(dir, 'forged'), { recursive: true });
  const truth = await startTestServer({ dataDir: join(dir, 'truth') });
  const forged = await startTestServer({ dataDir: join(dir, 'forged') });
  return { dir, truth, forged };
}
