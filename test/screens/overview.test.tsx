import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { recordJournal } from '../../src/server/governance/journal-writer.js';
import { queryAt } from '../../src/dashboard/state/resources.js';
import { overviewScreen } from '../../screens/overview.js';
import { startTestServer } from '../helpers/server.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { json, stall, startHostile } from '../helpers/hostile-server.js';
import { EMPTY_SCREEN_STATE } from '../../src/dashboard/kit/screen-state.js';

/** The demo appliance: its cloud CRM connector fails (no driver) and the deployment says degraded. */
const suite = setupScreenSuite({ start: () => startTestServer({ demo: true }) });

const header = (f: string) => f.split('\n').slice(0, 2).join('\n');
const selected = (f: string) => f.split('\n').find((l) => l.startsWith('›')) ?? '';
const CRM = /CRIT\s+Connector Cloud CRM\s+error: last sync failed/;

describe('overview screen', () => {
  it('is the first screen: names the failing CRM connector with its reason and the degraded deployment, from the first answers', async () => {
    const gets: string[] = [];
    const urls: string[] = [];
    const count = (req: IncomingMessage) => {
      gets.push(`${req.method} ${req.url?.split('?')[0]}`);
      urls.push(req.url ?? '');
    };
    suite.server.server.app.server.on('request', count);
    try {
      const d = suite.render({ columns: 120, rows: 40 });
      const f = await d.waitForText(CRM);
      expect(header(f)).toContain('[overview]');
      expect(f).toMatch(/WARN\s+Deployment degraded\s+ingestion degraded: last sync failed/);
      // worst first, the cursor on it
      expect(selected(f)).toMatch(CRM);
      expect(f).toMatch(/\d+ things? need/);
      // Enter opens the cause here, and the hints say so
      expect(f.split('\n').at(-2)).toMatch(/^H hour {2}D day {2}W 7 days {2}│ ⏎ open /);
      await d.press('?');
      expect(await d.waitForText('Keys everywhere')).toMatch(/Enter\s+open the screen that shows the row's cause/);
      await d.press('esc');
      // no retry: each was asked once before it was drawn
      expect(gets.filter((g) => g === 'GET /v1/admin/connectors')).toHaveLength(1);
      expect(gets.filter((g) => g === 'GET /v1/admin/deployment')).toHaveLength(1);
      // the last hour's usage carries the hour's rejections: the hour is not asked again by the day
      await d.waitForText(/Key \S+ +\d+ calls? rejected in the last hour/);
      const spans = urls
        .filter((u) => u.startsWith('/v1/admin/gateway/usage?'))
        .map((u) => new URL(u, 'http://x').searchParams)
        .map(
          (q) => `${q.get('bucket')} ${(Date.parse(q.get('end_time')!) - Date.parse(q.get('start_time')!)) / 60_000}`,
        );
      expect(spans).toContain('hour 60');
      expect(spans).not.toContain('day 60');
    } finally {
      suite.server.server.app.server.off('request', count);
    }
  });

  it('Enter on the connector line lands on the connectors screen with that connector selected', async () => {
    const d = suite.render();
    await d.waitForText(CRM);
    await d.press('enter');
    const f = await d.waitFor(
      (x) => header(x).includes('[connectors]') && selected(x).includes('Cloud CRM'),
      'the connectors screen on Cloud CRM',
    );
    expect(f).not.toContain('Detail:');
    // Shift-Tab returns to the board too
    await d.press('shift-tab');
    await d.waitFor((x) => header(x).includes('[overview]') && CRM.test(x), 'back on the overview');
  });

  it('Esc on the screen a line opened returns to the overview, same line; one reached by Tab has none', async () => {
    const d = suite.render();
    await d.waitForText(CRM);
    await d.press('down');
    const on = selected(await d.waitFor((x) => /Deployment degraded/.test(selected(x)), 'the deployment line'));
    await d.press('enter');
    const f = await d.waitFor((x) => header(x).includes('[deployment]'), 'the deployment screen');
    expect(f.split('\n').at(-2)).toContain('Esc back to overview');
    await d.press('?');
    await d.waitForText(/Esc\s+back \(.*; else to overview, which opened this\)/);
    await d.press('esc', 'esc');
    const back = await d.waitFor((x) => header(x).includes('[overview]') && CRM.test(x), 'back on the overview');
    // the same line; the columns may be laid out again meanwhile (a line came or went), so spaces are not compared
    const words = (l: string) => l.replace(/\s+/g, ' ');
    expect(words(selected(back))).toBe(words(on));
    // nothing further back: Esc stays here
    await d.press('tab');
    await d.waitFor((x) => header(x).includes('[connectors]'), 'connectors, by Tab');
    expect(d.frame()).not.toContain('back to');
    await d.press('esc');
    // still there: the next Tab goes on to channels (from the overview it would reach connectors)
    await d.press('tab');
    await d.waitFor((x) => header(x).includes('[channels]'), 'channels, by Tab from connectors');
  });

  it('at 80x24 the cursor line under the board says the reason the table cuts, and follows the cursor', async () => {
    const d = suite.render({ columns: 80, rows: 24 });
    const f = await d.waitForText(CRM);
    const under = (x: string) => x.split('\n').slice(-4, -2).join(' ');
    // the table cuts the reason at this width; the line under it does not
    expect(selected(f)).toMatch(/…/);
    expect(under(f)).toMatch(
      /^Connector Cloud CRM: error: last sync failed: no crm driver is installed on this +host to reach/,
    );
    await d.press('down');
    await d.waitFor(
      (x) => /^Deployment degraded: ingestion degraded: last sync failed/.test(under(x)),
      'the next line',
    );
  });

  it('at 60x20 What names the thing whole, the count and window left to the reason, which says them', async () => {
    const d = suite.render({ columns: 60, rows: 20 });
    const f = await d.waitForText(/CRIT {2}Connector Cloud CRM {2}/);
    expect(f).toMatch(/WARN {2}Deployment degraded {2}/);
    expect(f.split('\n').find((l) => /^\s+State\s+What/.test(l))).not.toContain('Count');
  });

  it('s on State sorts by how bad a line is: critical, then to watch, then OK', async () => {
    const d = suite.render({ columns: 120, rows: 40 });
    await d.waitForText(/OK\s+Audit chain/);
    await d.press('s');
    const f = await d.waitForText('sorted by State ▲');
    expect(f).toMatch(/^ {2}State ▲ {2}What/m);
    const badges = f
      .split('\n')
      .map((l) => /^[› ] \S (CRIT|WARN|N\/A|OK) /.exec(l)?.[1])
      .filter(Boolean);
    expect(badges[0]).toBe('CRIT');
    expect(badges.at(-1)).toBe('OK');
    expect(badges.join(' ')).toMatch(/^(CRIT )+(WARN )+(N\/A )*(OK ?)+$/);
  });

  it('an auditor sees the same board (it only reads)', async () => {
    const d = suite.render({ role: 'auditor' });
    const f = await d.waitForText(CRM);
    expect(f).toMatch(/Deployment degraded\s+ingestion degraded/);
    expect(header(f)).toContain('READ-ONLY');
  });

  it('one resource refused (503) and one that never answers: their lines say so, the others still show', async () => {
    const h = await startHostile({ upstream: suite.server.url });
    try {
      h.set(
        '/agent/budgets/usage',
        json(
          {
            type: 'about:blank',
            title: 'Service Unavailable',
            status: 503,
            code: 'SVC-ADMIN-503',
            detail: 'budget usage is not available',
            request_id: 'req_budget503',
          },
          503,
        ),
      );
      h.set('/agent/journal/summary', stall());
      const d = suite.render({ url: h.url, token: suite.server.tokens.it_admin, columns: 140, rows: 40 });
      const f = await d.waitFor(
        (x) => CRM.test(x) && x.includes('Agent budget use') && x.includes('failed to load'),
        'the board with the refused resource',
      );
      expect(f).toMatch(/N\/A\s+Agent budget use\s+failed to load: SVC-ADMIN-503 · request req_budget503: /);
      // the summary that never answers does not hold the rest back
      expect(f).toMatch(/N\/A\s+Agent failures by error\s+loading…/);
      expect(f).toMatch(/Deployment degraded\s+ingestion degraded/);
      // the board says it in its lines: no error banner on top of them
      expect(f).not.toContain('✕ ERROR loading');
    } finally {
      // the peer first: it drops the stalled poll, which the client's close would otherwise wait out
      await h.close();
      await suite.unmount();
    }
  });
});

describe('overview: links to the cause', () => {
  it("Enter on an agent's failures opens the journal on that agent's failed steps of the last day; on the denied attempts, the audit trail on them", async () => {
    // the summaries as the contract shapes them, answered in the appliance's place by a proxy
    // (their server side lands separately); everything else is the real demo appliance
    const h = await startHostile({ upstream: suite.server.url });
    try {
      h.set('/agent/journal/summary', (req, res) => {
        const thenBy = new URL(req.url ?? '/', 'http://x').searchParams.get('then_by');
        const sub = thenBy === 'tool' ? [{ key: 'hr_lookup', count: 6 }] : [{ key: 'tool_timeout', count: 5 }];
        json({
          total: 7,
          group_by: 'agent',
          then_by: thenBy,
          groups: [{ key: 'hr-assistant', count: 7, sub }],
          other: 0,
        })(req, res);
      });
      h.set(
        '/audit/summary',
        json({
          total: 3,
          group_by: 'actor',
          then_by: null,
          groups: [{ key: 'mallory@corp.example', count: 3 }],
          other: 0,
        }),
      );
      const d = suite.render({ url: h.url, token: suite.server.tokens.it_admin, columns: 140, rows: 40 });
      await d.waitForText(
        /WARN\s+Agent hr-assistant\s+7 failed steps: top error tool_timeout \(5\), top tool hr_lookup \(6\)/,
      );
      await d.press('/');
      await d.type('Agent hr-assistant');
      await d.press('enter');
      await d.waitFor((x) => selected(x).includes('Agent hr-assistant'), 'the agent line selected');
      await d.press('enter');
      const journal = await d.waitFor(
        (x) => header(x).includes('[journal]') && x.includes('agent hr-assistant'),
        'the journal on the agent',
      );
      expect(journal).toMatch(/last day.*agent hr-assistant.*status failed/);
      await d.press(':');
      await d.type('overview');
      await d.press('enter');
      await d.waitFor((x) => header(x).includes('[overview]'), 'back on the overview');
      await d.press('esc', '/');
      await d.type('Denied');
      await d.press('enter');
      await d.waitFor(
        (x) => /›.*Denied attempts\s+3 requests refused.*top actor mallory@corp\.example \(3\)/.test(x),
        'the denied line selected',
      );
      await d.press('enter');
      await d.waitFor(
        (x) => header(x).includes('[audit]') && /last day.*outcome denied/.test(x),
        'the audit trail on denied attempts',
      );
    } finally {
      await suite.unmount();
      await h.close();
    }
  });
});

describe('overview: failing agents', () => {
  it("each agent's failure count is the journal summary's", async () => {
    const s = await startTestServer();
    try {
      const t = Date.now() - 3_600_000;
      const fail = (agent: string, step: number, tool: string | null) =>
        recordJournal(s.server.db, {
          run_id: `run_${agent}_${step}`,
          agent,
          channel: 'chan_web',
          step,
          tool,
          status: 'failed',
          started_ms: t + step,
          ended_ms: t + step + 10,
          input_tokens: 1,
          output_tokens: 0,
        });
      for (let i = 0; i < 4; i++) fail('hr-assistant', i, 'hr_lookup');
      fail('sales-copilot', 9, null);
      recordJournal(s.server.db, {
        run_id: 'run_ok',
        agent: 'calm',
        channel: 'chan_web',
        step: 0,
        status: 'succeeded',
        started_ms: t,
        ended_ms: t + 5,
        input_tokens: 1,
        output_tokens: 1,
      });

      const request = overviewScreen.resources(EMPTY_SCREEN_STATE).find((r) => r.id === 'failuresByError')!;
      const summary = await s.call(
        'GET',
        `/agent/journal/summary?${new URLSearchParams(queryAt(request) as Record<string, string>)}`,
      );
      const { renderDashboard } = await import('../helpers/dashboard.js');
      const d = renderDashboard({ server: s, columns: 140, rows: 40 });
      try {
        expect(summary.status).toBe(200);
        const groups = summary.json.groups as { key: string; count: number }[];
        expect(groups.map((g) => g.key).sort()).toEqual(['hr-assistant', 'sales-copilot']);
        const f = await d.waitForText('Agent hr-assistant');
        for (const g of groups) {
          expect(f).toMatch(
            new RegExp(`WARN\\s+Agent ${g.key}\\s+${g.count} failed steps?.*\\s${g.count} · last 24 h`),
          );
        }
        expect(f).not.toContain('Agent calm');
      } finally {
        await d.unmount();
      }
    } finally {
      await s.close();
    }
  });
});
