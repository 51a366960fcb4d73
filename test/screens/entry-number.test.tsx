import { describe, expect, it } from 'vitest';
import { insertAuditBatch } from '../../src/server/governance/bulk.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

const SEEDED = 1_200;
const suite = setupScreenSuite({
  setup: async (s) => {
    insertAuditBatch(
      s.server.db,
      Array.from({ length: SEEDED }, (_, i) => ({
        at_ms: Date.now() - (SEEDED - i) * 60_000,
        actor: { subject: 'alice@corp.example', role: 'it_admin' as const },
        action: 'gateway.key.create',
        target: { type: 'gateway_key', id: `key_seed${i}` },
        outcome: 'success' as const,
        status: 201,
        request_id: `req_seed${i}`,
        source_ip: '10.0.0.1',
        details: {},
      })),
    );
    expect((await s.call('POST', '/gateway/keys', { body: { name: 'first' } })).status).toBe(201);
  },
});

describe("an audit entry's number is written as everywhere else (#1,201)", () => {
  it("in a change's result and in the action log's entry", async () => {
    const d = suite.render({ screen: 'keys', columns: 120, rows: 40 });
    await d.waitForText('row 1 of');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('numbered');
    await d.press('enter');
    await d.waitForText('Secret for numbered');
    await d.press('enter');
    const result = await d.waitForText('Audit entry aud_');
    const seq = suite.db
      .prepare("SELECT seq FROM audit WHERE action = 'gateway.key.create' ORDER BY seq DESC")
      .pluck()
      .get() as number;
    expect(seq).toBeGreaterThan(SEEDED);
    const written = `#${seq.toLocaleString('en-US')}`;
    expect(result).toMatch(new RegExp(`Audit entry aud_\\w+ · ${written}\\b`));
    await d.press('enter');
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    await d.waitFor((f) => /POST\s+\/gateway\/keys\s+201/.test(f), 'the change in the log');
    await d.press('enter');
    expect(await d.waitForText('Audit entry #')).toContain(`Audit entry ${written} (`);
  });
});
