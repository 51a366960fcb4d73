import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { epochMinute, recordUsage } from '../../src/server/gateway/metering.js';
import { tempDir } from '../helpers/fixtures.js';
import { selectRow, setupScreenSuite } from '../helpers/screen-suite.js';

/**
 * Issue 39, point 5: forms that do not fight the user. A custom time is taken as typed; the quota
 * form opens on the quota the operator came for, with its value selected so that typing replaces
 * it; the export dialog has a range, its file name follows the format, and a mismatch is refused.
 */
const NOW = Date.now();
const MIN = 60_000;
let outDir: string;

const entry = (i: number, agoMs: number): AuditSeed => ({
  at_ms: NOW - agoMs,
  actor: { subject: 'seed@corp.example', role: 'it_admin' },
  action: 'channel.update',
  target: { type: 'channel', id: agoMs > 60 * MIN ? `chan_old${i}` : `chan_new${i}` },
  outcome: 'success',
  status: 200,
  request_id: `req_forms${i}`,
  source_ip: '10.0.0.1',
  details: {},
});

const suite = setupScreenSuite({
  setup: async (s) => {
    // three changes 10 minutes ago, three 5 hours ago
    insertAuditBatch(s.server.db, [
      ...[0, 1, 2].map((i) => entry(i, 10 * MIN + i * 1000)),
      ...[3, 4, 5].map((i) => entry(i, 300 * MIN + i * 1000)),
    ]);
    // a key refused by its tokens/day quota over the last hour
    const key = (
      await s.call('POST', '/gateway/keys', {
        body: { name: 'tpd-bot', quota: { requests_per_minute: 20, tokens_per_minute: null, tokens_per_day: 20_000 } },
      })
    ).json as { id: string };
    recordUsage(s.server.db, key.id, epochMinute(NOW - 5 * MIN), {
      requests: 12,
      rejected_by: { tokens_per_day: 9 },
      input_tokens: 20_000,
      output_tokens: 10,
    });
    outDir = join(tempDir('aa-forms'), 'out');
    mkdirSync(outDir);
  },
});

const quotaOf = (name: string) =>
  suite.db
    .prepare('SELECT requests_per_minute, tokens_per_minute, tokens_per_day FROM gateway_keys WHERE name = ?')
    .get(name) as Record<string, number | null>;
const exports = () => suite.auditRows().filter((r) => r.action === 'audit.export').length;
const oneLine = (f: string) => f.replace(/[│\s]+/g, ' ');

describe('the filter form', () => {
  it('a From typed while the range is "all time" makes the range custom at once, and is applied', async () => {
    const d = suite.render({ screen: 'audit' });
    await d.waitForText('chan_old3');
    await d.press('f');
    await d.waitForText('Filter the audit trail');
    expect(d.frame()).toMatch(/Time range\s+‹ all time ›/);
    await d.press('tab');
    await d.type('2h');
    await d.waitFor((x) => /Time range\s+‹ custom: from \/ until below ›/.test(x), 'the range custom');
    await d.press('enter');
    const f = await d.waitFor((x) => x.includes('chan_new0') && !x.includes('chan_old3'), 'only the last 2 hours');
    expect(f).toMatch(/from \d{4}-\d\d-\d\d/);
  });
});

describe('the quota form', () => {
  it('opened from the overview line of tokens/day rejections, it starts on Tokens / day, and typing replaces the value', async () => {
    const d = suite.render({ screen: 'overview' });
    await d.waitForText('Key tpd-bot');
    await selectRow(d, 'Key tpd-bot');
    await d.press('enter');
    await d.waitFor(
      (x) => x.includes('[keys]') && x.split('\n').some((l) => l.startsWith('›') && l.includes('tpd-bot')),
    );
    await d.press('u');
    const form = await d.waitForText('Quota for tpd-bot');
    expect(form).toMatch(/› Tokens \/ day\s+20000/);
    await d.type('50000');
    await d.waitFor((x) => /› Tokens \/ day\s+50000\s/.test(x), 'the typed value alone');
    await d.press('enter');
    await d.waitForText('Quota saved');
    expect(quotaOf('tpd-bot')).toEqual({ requests_per_minute: 20, tokens_per_minute: null, tokens_per_day: 50_000 });
  });

  it('on the keys screen, the key refused by tokens/day opens on it too; typing into a prefilled field replaces it (20 + 5 is 5)', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('9 rejected in the last hour');
    await selectRow(d, 'tpd-bot');
    await d.press('u');
    await d.waitFor((x) => /› Tokens \/ day\s+\d+/.test(x), 'the form on tokens/day');
    await d.press('up', 'up'); // requests/minute, prefilled with 20
    await d.waitFor((x) => /› Requests \/ minute\s+20/.test(x), 'requests/minute focused');
    await d.type('5');
    await d.waitFor((x) => /› Requests \/ minute\s+5\s/.test(x), '5, not 205');
    await d.press('enter');
    await d.waitForText('Quota saved');
    expect(quotaOf('tpd-bot').requests_per_minute).toBe(5);
  });
});

describe('the export dialog', () => {
  it('the file name follows the format until one is typed; a JSON export into a .csv name is refused; nothing is written', async () => {
    const d = suite.render({ screen: 'audit', exportFolder: outDir });
    await d.waitForText('chan_old3');
    const before = exports();
    await d.press('w');
    await d.waitFor((x) => /File\s+\.\/audit-\d{8}T\d{6}Z\.csv/.test(x), 'the default name');
    await d.press('right'); // jsonl
    await d.waitFor((x) => /File\s+\.\/audit-\d{8}T\d{6}Z\.jsonl/.test(x), 'the name follows the format');
    await d.press('left'); // csv again
    await d.waitFor((x) => /File\s+\.\/audit-\d{8}T\d{6}Z\.csv/.test(x), 'and back');
    await d.press('tab');
    await d.type('mine.csv'); // replaces the selected default
    await d.press('shift-tab', 'right'); // jsonl: a name of the operator's own stays as typed
    await d.waitFor((x) => /Format\s+‹ jsonl/.test(x) && /File\s+mine\.csv\s/.test(x), 'jsonl, mine.csv kept');
    await d.press('enter');
    const refused = oneLine(await d.waitForText('✕ File'));
    expect(refused).toContain('✕ File: JSON Lines into a .csv name: name it .jsonl, or choose csv');
    expect(existsSync(join(outDir, 'mine.csv'))).toBe(false);
    expect(exports()).toBe(before);
  });

  it('has a range: the last hour exported from a screen showing all time holds only that hour', async () => {
    const d = suite.render({ screen: 'audit', exportFolder: outDir });
    await d.waitForText('chan_old3');
    await d.press('w');
    await d.waitForText('Export the audit trail');
    await d.press('right'); // jsonl
    await d.press('tab', 'down'); // the file (where Tab completes), then the range
    await d.waitFor((x) => /› Time range\s+‹ all time ›/.test(x), 'the range, as on screen');
    await d.press('right'); // last hour
    await d.waitFor((x) => /› Time range\s+‹ last hour ›/.test(x), 'last hour');
    await d.press('shift-tab');
    await d.write('\x15');
    await d.type('hour.jsonl');
    await d.press('enter');
    const done = await d.waitForText('Export written', 10_000);
    expect(oneLine(done)).toContain('last hour');
    const ids = readFileSync(join(outDir, 'hour.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => (JSON.parse(l) as { target: { id: string | null } }).target.id ?? '');
    expect(ids).toEqual(expect.arrayContaining(['chan_new0', 'chan_new1', 'chan_new2']));
    expect(ids.filter((id) => id.startsWith('chan_old'))).toEqual([]);
  });
});
