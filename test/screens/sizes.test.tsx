import { describe, expect, it } from 'vitest';
import { insertJournalBatch } from '../../src/server/governance/bulk.js';
import { widthOf } from '../../src/dashboard/kit/text.js';
import { screens } from '../../screens/index.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { selectRow, setupScreenSuite } from '../helpers/screen-suite.js';

const suite = setupScreenSuite({
  setup: async (s) => {
    const key = await s.call('POST', '/gateway/keys', { body: { name: 'sizes-key' } });
    expect(key.status).toBe(201);
    const defaults = { tokens_per_run: 20000, tool_calls_per_run: 20, seconds_per_run: 300, tokens_per_day: null };
    const put = await s.call('PUT', '/agent/budgets', {
      body: { defaults, agents: { 'hr-assistant': { tokens_per_day: 50000 } } },
    });
    expect(put.status).toBe(200);
    const now = Date.now();
    insertJournalBatch(
      s.server.db,
      [0, 1, 2].map((step) => ({
        run_id: 'run_sizes',
        agent: 'hr-assistant',
        channel: 'chan_web',
        step,
        tool: step === 1 ? 'search_docs' : null,
        status: 'succeeded',
        started_ms: now - 60_000 + step * 1000,
        ended_ms: now - 59_500 + step * 1000,
        input_tokens: 100,
        output_tokens: 10,
      })),
    );
  },
});

const SIZES = [
  [80, 24],
  [200, 60],
] as const;

/**
 * The leading columns of each list: the name first where its rows have one; the logs (audit,
 * journal, jobs) are read in time order, so their time comes first and a name right after it.
 */
const LEADING: Record<string, string[]> = {
  overview: ['State', 'What'],
  connectors: ['Name'],
  channels: ['Name'],
  keys: ['Name'],
  models: ['Name'],
  routing: ['Workload'],
  audit: ['Time (UTC)', 'Actor (role)'],
  journal: ['Time (UTC)', 'Agent'],
  budgets: ['Agent'],
  usage: ['Key'],
  jobs: ['Created (UTC)', 'Connector'],
};
const escaped = (s: string) => s.replace(/[()]/g, '\\$&');

/** Each form a key opens, and every field label it must show whole. */
const FORMS: { screen: string; row?: string; key: string; title: string; labels: string[] }[] = [
  {
    screen: 'audit',
    key: 'f',
    title: 'Filter the audit',
    labels: [
      'Time range',
      'From (custom)',
      'Until (custom)',
      'Actor',
      'Action',
      'Outcome',
      'Target type',
      'Request id',
      'Per page',
    ],
  },
  { screen: 'audit', key: 'w', title: 'Export the audit', labels: ['Format', 'File'] },
  {
    screen: 'journal',
    key: 'f',
    title: 'Filter the agent journal',
    labels: [
      'Time range',
      'From (custom)',
      'Until (custom)',
      'Agent',
      'Status',
      'Channel',
      'Run',
      'Tool',
      'Error code',
      'Per page',
    ],
  },
  { screen: 'journal', key: 'w', title: 'Export the agent journal', labels: ['Format', 'File'] },
  {
    screen: 'keys',
    key: 'n',
    title: 'Create a gateway key',
    labels: ['Name', 'Requests / minute', 'Tokens / minute', 'Tokens / day'],
  },
  {
    screen: 'keys',
    row: 'sizes-key',
    key: 'u',
    title: 'Quota for sizes-key',
    labels: ['Requests / minute', 'Tokens / minute', 'Tokens / day'],
  },
  {
    screen: 'budgets',
    row: 'hr-assistant',
    key: 'e',
    title: 'Budget override for hr-assistant',
    labels: ['Tokens / run', 'Tool calls / run', 'Seconds / run', 'Tokens / day'],
  },
  { screen: 'identity', key: 't', title: 'Check an identity provider', labels: ['Provider', 'URL'] },
];

const hintLine = (f: string) => f.split('\n').find((l) => l.includes('? help')) ?? '';

function fitsTheWidth(f: string, columns: number) {
  const wide = f.split('\n').filter((l) => widthOf(l) > columns);
  expect(wide).toEqual([]);
}

async function opened(d: DashboardHarness, name: string) {
  return d.waitFor((f) => f.includes(`[${name}]`) && !/loading/i.test(f.split('\n').slice(2).join('\n')), name);
}

describe.each(SIZES)('every screen at %ix%i', (columns, rows) => {
  for (const role of ['it_admin', 'auditor'] as const)
    it.each(screens.map((s) => s.name))(`${role}: %s keeps "? help" and "q quit", fits, name first`, async (name) => {
      const d = suite.render({ role, screen: name, columns, rows });
      const f = await opened(d, name);
      expect(hintLine(f)).toContain('? help');
      expect(hintLine(f)).toMatch(/q quit$/);
      fitsTheWidth(f, columns);
      expect(f.split('\n').length).toBeLessThanOrEqual(rows);
      const leading = LEADING[name];
      if (leading) {
        const header = new RegExp(`^ {2}${leading.map(escaped).join('[ ▲▼]*\\s+')}`, 'm');
        await d.waitFor((x) => header.test(x), `${name}: the header starts with ${leading.join(', ')}`);
      }
    });

  it.each(FORMS.map((form) => [`${form.screen} ${form.key}`, form] as const))(
    'the %s form shows every field',
    async (_, form) => {
      const d = suite.render({ screen: form.screen, columns, rows });
      await opened(d, form.screen);
      if (form.row) await selectRow(d, form.row);
      await d.press(form.key);
      const f = await d.waitForText(form.title);
      for (const label of form.labels)
        expect(f, `${form.title}: ${label}`).toMatch(new RegExp(`│ (› | {2})${escaped(label)}`));
      fitsTheWidth(f, columns);
      expect(f.split('\n').length).toBeLessThanOrEqual(rows);
      await d.press('esc');
    },
  );
});
