import { describe, expect, it } from 'vitest';
import { insertJournalBatch } from '../../src/server/governance/bulk.js';
import { recordUsage } from '../../src/server/gateway/metering.js';
import { recordSpend } from '../../src/server/gateway/spend.js';
import { widthOf } from '../../src/dashboard/kit/text.js';
import { screens } from '../../screens/index.js';
import { keptColumns } from '../../src/dashboard/kit/table-layout.js';
import { EMPTY_SCREEN_STATE } from '../../src/dashboard/kit/screen-state.js';
import { openLink } from '../../src/dashboard/shell/navigate.js';
import type { DashboardHarness } from '../helpers/dashboard.js';
import { selectRow, setupScreenSuite } from '../helpers/screen-suite.js';
import { startTestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';

const suite = setupScreenSuite({
  // priced, so that the keys screen's budget form opens
  start: () =>
    startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          pricing: { currency: 'EUR', models: { 'llama-3.1-8b': { input_per_million: 3, output_per_million: 15 } } },
        }),
    }),
  setup: async (s) => {
    const key = await s.call('POST', '/gateway/keys', { body: { name: 'sizes-key' } });
    expect(key.status).toBe(201);
    // a minute of traffic, some of it refused: the usage screen lists the key
    recordUsage(s.server.db, (key.json as { id: string }).id, Math.floor(Date.now() / 60_000) - 5, {
      requests: 12,
      input_tokens: 1200,
      output_tokens: 300,
      rejected_by: { requests_per_minute: 2 },
    });
    // and its spend: the spend screen lists its model
    recordSpend(s.server.db, (key.json as { id: string }).id, Math.floor(Date.now() / 60_000) - 5, {
      model_id: 'llama-3.1-8b',
      workload: 'chat',
      requests: 12,
      input_tokens: 1200,
      output_tokens: 300,
      cost_nanos: null,
    });
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
    // failures of a tool with a long name, on runs whose ids tell apart only late: what the journal
    // is read for when it lists failures
    insertJournalBatch(
      s.server.db,
      [0, 1].map((n) => ({
        run_id: `run_sizes_failure_${n}`,
        agent: 'contract-reviewer',
        channel: 'chan_web',
        step: 2,
        tool: 'extract_clause_list',
        status: 'failed',
        started_ms: now - 30_000 + n * 1000,
        ended_ms: now - 29_000 + n * 1000,
        input_tokens: 100,
        output_tokens: 0,
        error: { code: 'tool_timeout', message: 'the tool did not answer in 30 s' },
      })),
    );
  },
});

// 60x20 is the compact layout (fewer header parts, columns and hint words); 80x24 the classic terminal
const SIZES = [
  [60, 20],
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
  spend: ['Group', 'Cost'],
  jobs: ['Created (UTC)', 'Connector'],
};
const escaped = (s: string) => s.replace(/[()]/g, '\\$&');
const escapedAll = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

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
    labels: ['Name', 'Requests / minute', 'Tokens / minute', 'Tokens / day', 'Expires'],
  },
  {
    screen: 'keys',
    row: 'sizes-key',
    key: 'u',
    title: 'Quota for sizes-key',
    labels: ['Requests / minute', 'Tokens / minute', 'Tokens / day'],
  },
  { screen: 'keys', row: 'sizes-key', key: 'R', title: 'Rotate sizes-key?', labels: ['Old secret works'] },
  { screen: 'keys', row: 'sizes-key', key: 'E', title: 'Expiry of sizes-key', labels: ['Expires'] },
  { screen: 'keys', key: 'f', title: 'Find keys by name', labels: ['Name begins'] },
  {
    screen: 'keys',
    row: 'sizes-key',
    key: 'B',
    title: 'Budget of sizes-key',
    labels: ['Per UTC day (EUR)', 'Per month (EUR)', 'Warn at (%)'],
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

/**
 * The keys of each screen's job, as its hint line must offer them (a key and its word, or its
 * short word): at every size, and from 80 columns up (`from80`: the 60-column line has no room).
 */
const JOB_HINTS: Record<string, { all: RegExp[]; from80?: RegExp[] }> = {
  keys: { all: [/\bu (set )?quota\b/, /\bh history\b/] },
  routing: { all: [/\be change( model)?\b/, /\bh history\b/] },
  audit: { all: [/\bw export\b/, /\bV verify\b/], from80: [/\bA (pick )?action\b/, /\bv groups\b/] },
  journal: { all: [/\bw export\b/, /\bv groups\b/], from80: [/\bf filter\b/] },
  connectors: { all: [/\bi ingest\b/] },
  channels: { all: [/\bSpace toggle\b/] },
  models: { all: [/\ba activate\b/] },
  budgets: { all: [/\be edit\b/] },
  jobs: { all: [/\bc all connectors\b/] },
  usage: { all: [/\bu (set )?quota\b/] },
  spend: { all: [/\bb (group )?by\b/, /\bM 30 days\b/] },
  identity: { all: [/\bt run check\b/] },
};

/** The columns a screen keeps (Column.keep) as first opened. */
const keptHeaders = (name: string) => {
  const list = screens.find((x) => x.name === name)?.list;
  return list
    ? list.columns.filter((c, i) => keptColumns(list.columns, EMPTY_SCREEN_STATE)[i]).map((c) => c.header)
    : [];
};

/** A header as the table may show it: whole, or its short form on a short line (Column.short, the audit's time). */
const headerForms = (name: string, header: string) => {
  const column = screens.find((x) => x.name === name)?.list?.columns.find((c) => c.header === header);
  return column?.short?.header ? [header, column.short.header] : [header];
};

/** The table's header line: the first line starting with the gutter and a screen's leading header. */
const headerLine = (f: string, name: string) =>
  f
    .split('\n')
    .find(
      (l) =>
        headerForms(name, (LEADING[name] ?? [''])[0]).some((h) => l.startsWith(`  ${h}`)) && !l.startsWith('  row '),
    ) ?? '';

/**
 * The line under the table that says the cursor row: it starts with the row's first cell, which the
 * table may cut (…) but the line says whole. The overview says "what: reason" (its second cell).
 */
function cursorRowSaid(f: string, name: string): { row: string; said: string } | null {
  const lines = f.split('\n');
  const row = lines.find((l) => l.startsWith('› '));
  const at = lines.findIndex((l) => /^ {2}row \d+ of \d+/.test(l));
  if (!row || at < 0) return null;
  const cells = row.slice(2).split(/ {2,}/);
  return { row: (name === 'overview' ? cells[1] : cells[0]).replace(/…$/, ''), said: lines[at + 1] ?? '' };
}

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
        const forms = leading.map((h) => `(?:${headerForms(name, h).map(escapedAll).join('|')})`);
        const header = new RegExp(`^ {2}${forms.join('[ ▲▼]*\\s+')}`, 'm');
        const g = await d.waitFor((x) => header.test(x), `${name}: the header starts with ${leading.join(', ')}`);
        // what the screen keeps is there, whole, whatever the width
        for (const kept of keptHeaders(name)) expect(headerLine(g, name), `${name} keeps ${kept}`).toContain(kept);
      }
      const job = JOB_HINTS[name];
      for (const hint of [...(job?.all ?? []), ...(columns >= 80 ? (job?.from80 ?? []) : [])])
        expect(hintLine(f), `${name}: ${hint.source}`).toMatch(hint);
      // every list says its cursor row under the table, from its first cell (this server has no jobs, and
      // nothing was sent for the log)
      if (screens.find((x) => x.name === name)?.list && name !== 'log' && name !== 'jobs') {
        const g = await d.waitFor((x) => cursorRowSaid(x, name) !== null, `${name}: a row under the cursor`);
        const said = cursorRowSaid(g, name)!;
        // a screen with a line of its own for the cursor row says that (what the row is read for); the others
        // say the row's cells, from the first
        if (screens.find((x) => x.name === name)?.list?.cursorLine)
          expect(said.said.trim(), `${name}: the cursor row said under the table`).not.toBe('');
        else
          expect(said.said, `${name}: the cursor row said under the table`).toMatch(
            new RegExp(`^${escapedAll(said.row)}`),
          );
      }
    });

  it('? help fits, and Esc closes it', async () => {
    const d = suite.render({ screen: 'audit', columns, rows });
    await opened(d, 'audit');
    await d.press('?');
    const f = await d.waitForText('Keys everywhere');
    fitsTheWidth(f, columns);
    expect(f.split('\n').length).toBeLessThanOrEqual(rows);
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Keys everywhere') && x.includes('[audit]'), 'help closed');
  });

  it('keys keeps h history beside the way back when a link opened it', async () => {
    const d = suite.render({ screen: 'overview', columns, rows });
    await opened(d, 'overview');
    // as Enter on an overview line about a key opens it
    openLink(d.deps.ui, d.deps.screens, { screen: 'keys', select: 'sizes-key' });
    const f = await d.waitFor((x) => x.includes('[keys]') && /Esc back/.test(hintLine(x)), 'keys, with the way back');
    expect(hintLine(f)).toMatch(/\bh history\b/);
    expect(hintLine(f)).toMatch(/\bu (set )?quota\b/);
    expect(hintLine(f)).toMatch(/q quit$/);
    fitsTheWidth(f, columns);
  });

  it.each(FORMS.map((form) => [`${form.screen} ${form.key}`, form] as const))(
    'the %s form shows every field',
    async (_, form) => {
      const d = suite.render({ screen: form.screen, columns, rows });
      await opened(d, form.screen);
      if (form.row) await selectRow(d, form.row);
      await d.press(form.key);
      let f = await d.waitForText(form.title);
      // a short terminal scrolls a long form (↓ N more): Tab brings each field into view
      for (const label of form.labels) {
        const field = new RegExp(`│ (› | {2})${escaped(label)}`);
        for (let n = 0; n < form.labels.length && !field.test(f) && /↓ \d+ more/.test(f); n++) {
          const before = f;
          await d.press('tab');
          f = await d.waitFor((x) => x !== before, 'the focus on the next field');
        }
        expect(f, `${form.title}: ${label}`).toMatch(field);
        fitsTheWidth(f, columns);
      }
      fitsTheWidth(f, columns);
      expect(f.split('\n').length).toBeLessThanOrEqual(rows);
      await d.press('esc');
    },
  );
});

// the journal cut Tool to five characters while it listed failures, at 120 columns too
it.each([...SIZES, [120, 40] as const])(
  'at %ix%i the journal keeps Tool whole while it lists failures',
  async (columns, rows) => {
    const d = suite.render({ screen: 'journal', columns, rows });
    await opened(d, 'journal');
    // as the overview's line about an agent's failures opens it (Enter on that line)
    openLink(d.deps.ui, d.deps.screens, { screen: 'journal', extra: { filters: { status: 'failed' } } });
    const f = await d.waitFor((x) => /status failed/.test(x) && /^› .*contract-re/m.test(x), 'the failures listed');
    expect(headerLine(f, 'journal')).toContain('Tool');
    const failures = f.split('\n').filter((l) => /^[› ] \d{4}-.*contract-re/.test(l));
    expect(failures.length).toBeGreaterThan(0);
    for (const l of failures) expect(l).toContain(' extract_clause_list');
    fitsTheWidth(f, columns);
  },
);
