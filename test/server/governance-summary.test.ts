import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, insertJournalBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { recordJournal, type JournalRecord } from '../../src/server/governance/journal-writer.js';
import { journalFinisher } from '../../src/server/demo/journal-steps.js';
import Database from 'better-sqlite3';
import { AUDIT_GROUPS, JOURNAL_GROUPS } from '../../src/contract/index.js';
import { migrations } from '../../src/server/db/migrations.js';
import { migrate } from '../../src/server/db/open.js';
import { summarizeAudit } from '../../src/server/governance/audit-trail.js';
import { summarizeJournal } from '../../src/server/governance/agent-journal.js';

/**
 * Summaries count over the whole match of a list's filters, never a page: each total and group
 * count here is checked against the seeded rows, counted in JavaScript.
 */
const BASE = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** rows every 12 minutes: 400 audit entries over 3.3 days */
const STEP = 12 * 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
/**
 * No range; whole days; and a range with ragged ends, which summaries count from whole days, whole
 * hours and single rows: each must give what the rows give.
 */
const WINDOWS: [string, (ms: number) => boolean][] = [
  ['', () => true],
  [`start_time=${iso(BASE)}&end_time=${iso(BASE + 2 * DAY)}`, (ms) => ms >= BASE && ms < BASE + 2 * DAY],
  [
    `start_time=${iso(BASE + HOUR + 30 * 60_000 + 15_500)}&end_time=${iso(BASE + 2 * DAY + 5 * HOUR + 10 * 60_000)}`,
    (ms) => ms >= BASE + HOUR + 30 * 60_000 + 15_500 && ms < BASE + 2 * DAY + 5 * HOUR + 10 * 60_000,
  ],
];

const ACTORS = ['ana@corp', 'Ben.Martin@corp', 'svc-siem'];
const ACTIONS = ['gateway.key.revoke', 'gateway.key.quota', 'channel.update', 'audit.export'];
const TARGET_TYPES: Record<string, string> = {
  'gateway.key.revoke': 'gateway_key',
  'gateway.key.quota': 'gateway_key',
  'channel.update': 'channel',
  'audit.export': 'audit',
};
const OUTCOMES = ['success', 'success', 'denied', 'failed', 'success'] as const;

const AGENTS = ['hr-assistant', 'it-helpdesk', 'finance-analyst'];
const CHANNELS = ['chan_web', 'chan_teams'];
const TOOLS = [null, 'sql_query', 'search_docs'];
const STATUSES = ['succeeded', 'failed', 'succeeded', 'cancelled', 'succeeded', 'failed', 'running'] as const;

interface AuditRow {
  actor: string;
  action: string;
  outcome: string;
  target_type: string;
  target_id: string | null;
  target_name: string | null;
  details: string;
  at_ms: number;
}
interface JournalRow {
  agent: string;
  status: string;
  tool: string | null;
  error_code: string | null;
  error_message: string | null;
  channel: string;
  run_id: string;
  started_ms: number;
}

let s: TestServer;
const audit: AuditRow[] = [];
const journal: JournalRow[] = [];

function errorFor(status: string, i: number, tool: string | null): { code: string; message: string } | null {
  if (status === 'cancelled') return { code: 'cancelled', message: 'the user left the conversation' };
  if (status !== 'failed') return null;
  if (tool === null)
    return {
      code: i % 2 ? 'model_unavailable' : 'budget_exceeded',
      message: 'no model answered the chat workload within 60 s',
    };
  return i % 3
    ? { code: 'tool_error', message: `${tool} failed: the reporting replica refused the query` }
    : { code: 'tool_timeout', message: `${tool} did not answer within 30 s` };
}

beforeAll(async () => {
  s = await startTestServer();
  const auditSeeds: AuditSeed[] = [];
  for (let i = 0; i < 400; i++) {
    const action = ACTIONS[i % 4];
    const outcome = OUTCOMES[i % 5];
    const target_type = TARGET_TYPES[action];
    const target_id = target_type === 'audit' ? null : `${target_type === 'channel' ? 'chan' : 'key'}_${i % 7}`;
    const target_name = target_type === 'gateway_key' ? `Billing Export ${i % 7}` : null;
    const details = { n: i, note: i % 10 === 0 ? 'Quarterly 50%_report' : 'routine' };
    const row: AuditRow = {
      actor: ACTORS[i % 3],
      action,
      outcome,
      target_type,
      target_id,
      target_name,
      details: JSON.stringify(details),
      at_ms: BASE + i * STEP,
    };
    audit.push(row);
    auditSeeds.push({
      actor: { subject: row.actor, role: 'it_admin' },
      action,
      target: { type: target_type, id: target_id, name: target_name },
      outcome,
      status: outcome === 'denied' ? 403 : 200,
      request_id: `req_${i}`,
      source_ip: null,
      details,
      at_ms: row.at_ms,
    });
  }
  insertAuditBatch(s.server.db, auditSeeds);

  const journalSeeds: JournalRecord[] = [];
  for (let i = 0; i < 350; i++) {
    const status = STATUSES[i % 7];
    const tool = TOOLS[i % 3];
    const error = errorFor(status, i, tool);
    const row: JournalRow = {
      agent: AGENTS[i % 3],
      status,
      tool,
      error_code: error?.code ?? null,
      error_message: error?.message ?? null,
      channel: CHANNELS[i % 2],
      run_id: `run_${Math.floor(i / 5)}`,
      started_ms: BASE + i * STEP,
    };
    journal.push(row);
    journalSeeds.push({
      run_id: row.run_id,
      agent: row.agent,
      channel: row.channel,
      step: i % 5,
      tool,
      status,
      started_ms: row.started_ms,
      ended_ms: status === 'running' ? null : row.started_ms + 500,
      input_tokens: 10,
      output_tokens: 5,
      error,
    });
  }
  insertJournalBatch(s.server.db, journalSeeds);
});
afterAll(async () => {
  await s.close();
});

const AUDIT_COLUMN: Record<string, (r: AuditRow) => string | null> = {
  outcome: (r) => r.outcome,
  action: (r) => r.action,
  actor: (r) => r.actor,
  target_type: (r) => r.target_type,
};
const JOURNAL_COLUMN: Record<string, (r: JournalRow) => string | null> = {
  agent: (r) => r.agent,
  status: (r) => r.status,
  tool: (r) => r.tool,
  error_code: (r) => r.error_code,
  channel: (r) => r.channel,
};

const contains = (q: string) => (v: string | null) => v !== null && v.toLowerCase().includes(q.toLowerCase());
const auditMatchesQ = (q: string) => (r: AuditRow) =>
  [r.actor, r.action, r.target_id, r.target_name, r.details].some(contains(q));
const journalMatchesQ = (q: string) => (r: JournalRow) =>
  [r.agent, r.tool, r.run_id, r.error_code, r.error_message].some(contains(q));

/** Counts per key, as the summary should give them: largest first, ties by key with null first. */
function expectedGroups<R>(rows: R[], key: (r: R) => string | null): { key: string | null; count: number }[] {
  const m = new Map<string | null, number>();
  for (const r of rows) m.set(key(r), (m.get(key(r)) ?? 0) + 1);
  return [...m]
    .map(([k, count]) => ({ key: k, count }))
    .sort(
      (a, b) =>
        b.count - a.count || (a.key === b.key ? 0 : a.key === null ? -1 : b.key === null ? 1 : a.key < b.key ? -1 : 1),
    );
}

function checkSummary<R>(
  body: any,
  rows: R[],
  columns: Record<string, (r: R) => string | null>,
  groupBy: string,
  thenBy?: string,
): void {
  expect(body.total).toBe(rows.length);
  expect(body.group_by).toBe(groupBy);
  expect(body.then_by).toBe(thenBy ?? null);
  const groups = expectedGroups(rows, columns[groupBy]);
  expect(body.groups.map((g: any) => ({ key: g.key, count: g.count }))).toEqual(groups.slice(0, 50));
  expect(body.other).toBe(groups.slice(50).reduce((n, g) => n + g.count, 0));
  if (thenBy) {
    for (const g of body.groups) {
      expect(g.sub).toEqual(
        expectedGroups(
          rows.filter((r) => columns[groupBy](r) === g.key),
          columns[thenBy],
        ).slice(0, 3),
      );
    }
  }
}

describe('GET /audit/summary', () => {
  const filtered: [string, (r: AuditRow) => boolean][] = [
    ['', () => true],
    ['&outcome=denied', (r) => r.outcome === 'denied'],
    ['&action=gateway.key.*&actor=ana@corp', (r) => r.action.startsWith('gateway.key.') && r.actor === 'ana@corp'],
    ['&target_type=gateway_key', (r) => r.target_type === 'gateway_key'],
    ['&q=billing export 3', auditMatchesQ('billing export 3')],
    ['&q=50%25_rep&outcome=success', (r) => auditMatchesQ('50%_rep')(r) && r.outcome === 'success'],
  ];

  it('counts every matching entry per group and sub-group, for each group_by and then_by, with filters and q', async () => {
    for (const [window, inWindow] of WINDOWS) {
      for (const [query, match] of filtered) {
        const rows = audit.filter((r) => inWindow(r.at_ms) && match(r));
        expect(rows.length, window + query).toBeGreaterThan(0);
        const plain = await s.call('GET', `/audit/summary?${window}${query}`, { role: 'auditor' });
        expect(plain.status, query).toBe(200);
        expect(plain.json).toEqual({ total: rows.length, group_by: null, then_by: null, groups: [], other: 0 });
        for (const g of AUDIT_GROUPS) {
          for (const t of [undefined, ...AUDIT_GROUPS.filter((x) => x !== g)]) {
            const res = await s.call(
              'GET',
              `/audit/summary?${window}${query}&group_by=${g}${t ? `&then_by=${t}` : ''}`,
            );
            expect(res.status, `${window}${query} ${g} ${t}`).toBe(200);
            checkSummary(res.json, rows, AUDIT_COLUMN, g, t);
          }
        }
      }
    }
  });

  it('done when: the total for outcome=denied is the number of denied entries, not a page of them', async () => {
    const denied = s.server.db.prepare("SELECT count(*) FROM audit WHERE outcome = 'denied'").pluck().get() as number;
    expect(denied).toBeGreaterThan(50);
    const page = await s.call('GET', '/audit?outcome=denied');
    expect(page.json.data).toHaveLength(50);
    const res = await s.call('GET', '/audit/summary?outcome=denied');
    expect(res.json.total).toBe(denied);
    // an attempt audited by the server itself counts at once
    expect((await s.call('POST', '/gateway/keys', { role: 'auditor', body: { name: 'x' } })).status).toBe(403);
    const after = await s.call('GET', '/audit/summary?outcome=denied&group_by=actor');
    expect(after.json.total).toBe(denied + 1);
    expect(after.json.groups).toContainEqual({ key: 'aude-auditor', count: 1 });
  });

  it('keeps at most limit groups and counts the rest as other', async () => {
    const [window, inWindow] = WINDOWS[2];
    const res = await s.call('GET', `/audit/summary?${window}&group_by=action&limit=2`);
    const groups = expectedGroups(
      audit.filter((r) => inWindow(r.at_ms)),
      AUDIT_COLUMN.action,
    );
    expect(res.json.groups).toEqual(groups.slice(0, 2));
    expect(res.json.other).toBe(groups.slice(2).reduce((n, g) => n + g.count, 0));
  });

  it('answers 400 problem+json for a bad group_by, then_by or q', async () => {
    for (const query of [
      'group_by=status',
      'group_by=actor&then_by=actor',
      'then_by=actor',
      'q=x',
      `q=${'y'.repeat(201)}`,
      'limit=0',
      'group_by=outcome&bogus=1',
    ]) {
      const res = await s.call('GET', `/audit/summary?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});

describe('GET /agent/journal/summary', () => {
  const filtered: [string, (r: JournalRow) => boolean][] = [
    ['', () => true],
    ['&status=failed', (r) => r.status === 'failed'],
    ['&tool=sql_query', (r) => r.tool === 'sql_query'],
    ['&error_code=tool_error&agent=it-helpdesk', (r) => r.error_code === 'tool_error' && r.agent === 'it-helpdesk'],
    ['&q=REPLICA', journalMatchesQ('replica')],
    ['&q=run_1&channel=chan_web', (r) => journalMatchesQ('run_1')(r) && r.channel === 'chan_web'],
  ];

  it('counts every matching step per group and sub-group, for each group_by and then_by, with filters and q', async () => {
    for (const [window, inWindow] of WINDOWS) {
      for (const [query, match] of filtered) {
        const rows = journal.filter((r) => inWindow(r.started_ms) && match(r));
        expect(rows.length, window + query).toBeGreaterThan(0);
        for (const g of JOURNAL_GROUPS) {
          for (const t of [undefined, ...JOURNAL_GROUPS.filter((x) => x !== g)]) {
            const res = await s.call(
              'GET',
              `/agent/journal/summary?${window}${query}&group_by=${g}${t ? `&then_by=${t}` : ''}`,
              { role: 'app_owner' },
            );
            expect(res.status, `${window}${query} ${g} ${t}`).toBe(200);
            checkSummary(res.json, rows, JOURNAL_COLUMN, g, t);
          }
        }
      }
    }
  });

  it('groups steps without a tool or an error under a null key', async () => {
    const res = await s.call('GET', '/agent/journal/summary?group_by=error_code');
    expect(res.json.groups[0]).toEqual({ key: null, count: journal.filter((r) => r.error_code === null).length });
  });

  it('follows a step from running to its end: the counts move with it', async () => {
    const at = BASE + 30 * DAY + 5 * HOUR;
    const window = `start_time=${iso(at - 3 * DAY)}&end_time=${iso(at + 10 * HOUR)}&group_by=status&then_by=error_code`;
    const id = recordJournal(s.server.db, {
      run_id: 'run_live',
      agent: 'it-helpdesk',
      channel: 'chan_web',
      step: 0,
      tool: 'create_ticket',
      status: 'running',
      started_ms: at,
      input_tokens: 1,
      output_tokens: 0,
    });
    expect((await s.call('GET', `/agent/journal/summary?${window}`)).json.groups).toEqual([
      { key: 'running', count: 1, sub: [{ key: null, count: 1 }] },
    ]);
    journalFinisher(s.server.db)(id, 'failed', at, at + 900, 1, 0, {
      code: 'tool_timeout',
      message: 'create_ticket did not answer within 30 s',
    });
    expect((await s.call('GET', `/agent/journal/summary?${window}`)).json).toEqual({
      total: 1,
      group_by: 'status',
      then_by: 'error_code',
      groups: [{ key: 'failed', count: 1, sub: [{ key: 'tool_timeout', count: 1 }] }],
      other: 0,
    });
  });

  it('answers 400 for a bad group_by or then_by', async () => {
    for (const query of ['group_by=outcome', 'group_by=tool&then_by=tool', 'then_by=agent', 'group_by=run_id']) {
      const res = await s.call('GET', `/agent/journal/summary?${query}`);
      expect(res.status, query).toBe(400);
    }
  });
});

describe('upgrading a database with entries', () => {
  it('fills the tallies from the entries already there, so the first summary counts them all', () => {
    const db = new Database(':memory:');
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    for (const m of migrations.filter((x) => x.version < 5)) {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, iso(BASE));
    }
    const audit =
      db.prepare(`INSERT INTO audit (id, at, at_ms, actor_subject, actor_role, action, target_type, target_id, outcome, status, request_id, details)
      VALUES (?, ?, ?, ?, 'it_admin', 'channel.update', 'channel', NULL, ?, 200, 'req', '{}')`);
    const journal =
      db.prepare(`INSERT INTO journal (id, run_id, agent, channel, step, tool, status, started_at, started_ms, input_tokens, output_tokens)
      VALUES (?, 'run_1', 'hr-assistant', 'chan_web', ?, ?, 'succeeded', ?, ?, 0, 0)`);
    for (let i = 0; i < 90; i++) {
      audit.run(`aud_${i}`, iso(BASE + i * HOUR), BASE + i * HOUR, ACTORS[i % 3], OUTCOMES[i % 5]);
      journal.run(`jrn_${i}`, i, i % 2 ? 'search_docs' : null, iso(BASE + i * HOUR), BASE + i * HOUR);
    }
    migrate(db);
    const spec = { limit: 50 };
    const denied = summarizeAudit(db, { ...spec, outcome: 'denied', group_by: 'actor' });
    expect(denied.total).toBe(18);
    expect(denied.groups.reduce((n, g) => n + g.count, 0)).toBe(18);
    expect(summarizeJournal(db, { ...spec, start_time: iso(BASE + DAY), group_by: 'tool' }).groups).toEqual([
      { key: null, count: 33 },
      { key: 'search_docs', count: 33 },
    ]);
    db.close();
  });
});
