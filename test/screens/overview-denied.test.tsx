import { describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/server/audit.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * The overview's denied line counts 403s and 401s apart (issue 36 §12). A 401 is audited as one
 * `auth.refused` entry per source and minute with its count (never a token): written here with
 * recordAudit in that shape, as the appliance writes them.
 */
const suite = setupScreenSuite();

function refused(sourceIp: string | null, count: number, minutesAgo: number, more: Record<string, unknown> = {}) {
  const at = Date.now() - minutesAgo * 60_000;
  recordAudit(suite.db, {
    actor: { subject: 'anonymous', role: null },
    action: 'auth.refused',
    target: { type: 'session', id: null, name: null },
    outcome: 'denied',
    status: 401,
    request_id: `req_refused_${sourceIp ?? 'pooled'}_${minutesAgo}`,
    source_ip: sourceIp,
    details: {
      count,
      first_at: new Date(at - 50_000).toISOString(),
      last_at: new Date(at).toISOString(),
      reasons: { unknown: count },
      ...more,
    },
    at_ms: at,
  });
}

describe("the overview's denied attempts", () => {
  it('403s (with the top actor) and 401s (requests and sources) apart, over the last 24 h', async () => {
    for (const name of ['one', 'two', 'three'])
      expect((await suite.server.call('POST', '/gateway/keys', { role: 'auditor', body: { name } })).status).toBe(403);
    refused('203.0.113.7', 40, 3);
    refused('203.0.113.7', 12, 2);
    refused('198.51.100.2', 1, 1);
    // older than a day: not counted
    refused('192.0.2.1', 500, 25 * 60);

    const o = suite.render({ columns: 260 });
    const board = await o.waitForText(/Denied attempts.*401/);
    expect(board).toMatch(
      /WARN\s+Denied attempts\s+3 requests refused for lack of permission \(403\); top actor aude-auditor \(3\) · 53 requests without a valid token \(401\) from 2 sources\s+56 · last 24 h/,
    );
    await o.unmount();

    // past the appliance's cap of sources in a minute, one entry without a source counts the rest
    refused(null, 9000, 0, { sources: 1000 });
    const again = suite.render({ columns: 260 });
    await again.waitForText('9,053 requests without a valid token (401) from 1,002 sources');
  });
});
