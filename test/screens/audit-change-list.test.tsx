import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * Issue 39, point 4: "who changed routing, from what to what" is answered by the audit list itself:
 * a routing change and a model activation read "from → to" in the Target cell, briefly, at 120 and
 * at 80 columns, without Enter. The changes are made through the real API, so the entries are the
 * appliance's own.
 */
const suite = setupScreenSuite({
  setup: async (s) => {
    // summarize follows mistral-7b in the fixture: routed to the active model, then back to mistral
    expect((await s.call('PUT', '/routing/summarize', { body: { model_id: null } })).status).toBe(200);
    expect((await s.call('PUT', '/routing/chat', { body: { model_id: 'mistral-7b' } })).status).toBe(200);
    expect((await s.call('POST', '/models/activate', { body: { model_id: 'mistral-7b' } })).status).toBe(200);
  },
});

const rowsOf = (f: string, action: string) => f.split('\n').filter((l) => l.includes(action));

describe('the audit list says what a change did', () => {
  for (const [columns, rows] of [
    [120, 40],
    [80, 24],
  ] as const)
    it(`at ${columns}x${rows}: routing and activation rows read from → to`, async () => {
      const d = suite.render({ role: 'auditor', screen: 'audit', columns, rows });
      const f = await d.waitFor((x) => rowsOf(x, 'model.activate').length > 0, 'the activation row');
      if (columns >= 120) {
        const routing = rowsOf(f, 'routing.update');
        expect(
          routing.some((l) => l.includes('summarize: mistral-7b → ↻active')),
          routing.join('\n'),
        ).toBe(true);
        expect(
          routing.some((l) => l.includes('chat: ↻active → mistral-7b')),
          routing.join('\n'),
        ).toBe(true);
        expect(rowsOf(f, 'model.activate')[0]).toContain('llama-3.1-8b → mistral-7b');
      } else {
        // the target gives way last: the change starts in the cell, and the cursor's is said whole under the table
        expect(rowsOf(f, 'routing.update').some((l) => /routing\.update {2}chat: ↻/.test(l))).toBe(true);
        expect(f).toContain('model.activate llama-3.1-8b → mistral-7b · by alice-admin (it_admin)');
        await d.press('down');
        await d.waitForText('routing.update chat: ↻active → mistral-7b · by alice-admin (it_admin)');
        await d.press('down');
        await d.waitForText('routing.update summarize: mistral-7b → ↻active · by alice-admin (it_admin)');
      }
    });

  it('Enter on an activation says the change whole', async () => {
    const d = suite.render({ role: 'it_admin', screen: 'audit', columns: 80, rows: 24 });
    await d.waitFor((x) => rowsOf(x, 'model.activate').length > 0, 'the activation row');
    // the newest entry is the activation (made last)
    await d.press('home', 'enter');
    expect(await d.waitForText('change')).toMatch(/change\s+llama-3\.1-8b → mistral-7b/);
  });
});
