import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 5, point 5: concurrent changes end consistent, and the audit trail says what happened.
 * - "Exactly one active model after concurrent activations" is checked in models.test.ts; here the
 *   activations race reads and refused activations, and their audit entries must form one chain.
 * - "Two ingestions of the same source get one 202 and one 409" is connectors.test.ts
 *   ('refuses a second ingestion of a source while the first is in flight (409), then allows it again').
 */
const CONNECTIONS = 6;

let s: TestServer;
let pool: Pool;
beforeAll(async () => {
  s = await startTestServer();
  pool = new Pool(s.url, { connections: CONNECTIONS });
});
afterAll(async () => {
  await pool?.close();
  await s?.close();
});

interface Answer {
  status: number;
  requestId: string;
  json: Record<string, unknown>;
}
async function call(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<Answer> {
  const res = await pool.request({
    method,
    path: `/v1/admin${path}`,
    headers: {
      authorization: `Bearer ${s.tokens.it_admin}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.statusCode,
    requestId: String(res.headers['x-request-id']),
    json: (await res.body.json()) as Record<string, unknown>,
  };
}

interface AuditRow {
  seq: number;
  action: string;
  target_id: string | null;
  outcome: string;
  status: number;
  details: Record<string, unknown>;
}
const auditOf = (requestId: string) => {
  const row = s.server.db
    .prepare('SELECT seq, action, target_id, outcome, status, details FROM audit WHERE request_id = ?')
    .get(requestId) as (Omit<AuditRow, 'details'> & { details: string }) | undefined;
  return row && { ...row, details: JSON.parse(row.details) as Record<string, unknown> };
};

describe('concurrent activations', () => {
  it('never show zero or two active models, and their audit entries form one chain', async () => {
    const activeBefore = ((await call('GET', '/models')).json.data as { id: string; active: boolean }[]).find(
      (m) => m.active,
    )!.id;
    const targets = Array.from({ length: 60 }, (_, i) =>
      i % 10 === 7 ? 'ghost-70b' : i % 15 === 4 ? 'no-such-model' : ['llama-3.1-8b', 'mistral-7b'][i % 2],
    );
    const [activations, reads] = await Promise.all([
      Promise.all(targets.map((model_id) => call('POST', '/models/activate', { model_id }))),
      Promise.all(Array.from({ length: 30 }, () => call('GET', '/models'))),
    ]);

    for (const read of reads) {
      expect((read.json.data as { active: boolean }[]).filter((m) => m.active)).toHaveLength(1);
    }
    activations.forEach((res, i) => {
      expect(res.status).toBe(targets[i] === 'ghost-70b' ? 422 : targets[i] === 'no-such-model' ? 404 : 200);
      const audit = auditOf(res.requestId)!;
      expect(audit).toMatchObject({
        action: 'model.activate',
        outcome: res.status === 200 ? 'success' : 'failed',
        status: res.status,
      });
      if (res.status === 200) expect(audit.details.previous_model_id).toBe(res.json.previous_model_id);
    });

    // in commit order, each activation names the one before it as previous: no lost update
    const chain = activations
      .filter((r) => r.status === 200)
      .map((r) => auditOf(r.requestId)!)
      .sort((a, b) => a.seq - b.seq);
    expect(chain).toHaveLength(targets.filter((t) => t !== 'ghost-70b' && t !== 'no-such-model').length);
    chain.forEach((a, i) => expect(a.details.previous_model_id).toBe(i === 0 ? activeBefore : chain[i - 1].target_id));
    const active = ((await call('GET', '/models')).json.data as { id: string; active: boolean }[]).filter(
      (m) => m.active,
    );
    expect(active.map((m) => m.id)).toEqual([chain.at(-1)!.target_id]);
  });
});

describe('concurrent revokes and quota changes on one key', () => {
  const quotaOf = (n: number) => ({ requests_per_minute: n, tokens_per_minute: n * 100, tokens_per_day: null });

  it('end revoked, with every quota change applied before the revoke (200) or refused after it (409)', async () => {
    const keys = await Promise.all(
      Array.from({ length: 5 }, async (_, k) => {
        const res = await call('POST', '/gateway/keys', { name: `race-${k}`, quota: { tokens_per_day: 7 } });
        expect(res.status).toBe(201);
        return res.json.id as string;
      }),
    );
    // per key: 30 quota changes with distinct values and three revokes among them, all at once
    const plan = keys.flatMap((id) =>
      Array.from({ length: 33 }, (_, i) =>
        [10, 20, 30].includes(i) ? { id, revoke: true as const } : { id, revoke: false as const, value: i },
      ),
    );
    const answers = await Promise.all(
      plan.map(async (p) => ({
        ...p,
        res: p.revoke
          ? await call('POST', `/gateway/keys/${p.id}/revoke`)
          : await call('PUT', `/gateway/keys/${p.id}/quota`, quotaOf(p.value)),
      })),
    );

    let applied = 0;
    let refused = 0;
    for (const id of keys) {
      const mine = answers.filter((a) => a.id === id);
      const revokes = mine.filter((a) => a.revoke);
      expect(revokes.map((a) => a.res.status)).toEqual([200, 200, 200]);
      const revokedAt = revokes[0].res.json.revoked_at;
      for (const r of revokes) expect(r.res.json).toMatchObject({ status: 'revoked', revoked_at: revokedAt });
      const revokeAudits = revokes.map((r) => auditOf(r.res.requestId)!).sort((a, b) => a.seq - b.seq);
      expect(revokeAudits.map((a) => a.details.already_revoked)).toEqual([false, true, true]);
      const revokedSeq = revokeAudits[0].seq;

      const quotaChanges = mine.filter((a) => !a.revoke) as ((typeof mine)[number] & { value: number })[];
      for (const q of quotaChanges) {
        const audit = auditOf(q.res.requestId)!;
        if (q.res.status === 200) {
          expect(q.res.json).toMatchObject({ status: 'active', quota: quotaOf(q.value) });
          expect(audit).toMatchObject({ outcome: 'success', status: 200, details: { to: quotaOf(q.value) } });
          expect(audit.seq).toBeLessThan(revokedSeq);
        } else {
          expect(q.res.status).toBe(409);
          expect(q.res.json.code).toBe('SVC-ADMIN-409');
          expect(audit).toMatchObject({ outcome: 'failed', status: 409 });
          expect(audit.seq).toBeGreaterThan(revokedSeq);
        }
      }
      const ok = quotaChanges
        .filter((q) => q.res.status === 200)
        .sort((a, b) => auditOf(a.res.requestId)!.seq - auditOf(b.res.requestId)!.seq);
      applied += ok.length;
      refused += quotaChanges.length - ok.length;

      const stored = (
        (await call('GET', '/gateway/keys?limit=500')).json.data as { id: string; status: string; quota: unknown }[]
      ).find((k) => k.id === id)!;
      expect(stored.status).toBe('revoked');
      expect(stored.quota).toEqual(
        ok.length
          ? quotaOf(ok.at(-1)!.value)
          : { requests_per_minute: null, tokens_per_minute: null, tokens_per_day: 7 },
      );
    }
    // the race really happened both ways
    expect(applied).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
