import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { insertAuditBatch, insertJournalBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { recordJournal, type JournalRecord } from '../../src/server/governance/journal-writer.js';

/** Text search (q), the new filters, audit target names and journal errors, through the real server. */
const BASE = Date.parse('2026-02-01T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const WINDOW = `start_time=${iso(BASE)}&end_time=${iso(BASE + 86_400_000)}`;

let s: TestServer;
const isKey = (i: number) => Math.floor(i / 8) % 2 === 1;
/** ids by field the term sits in, newest first */
const expectedAudit: string[] = [];
const expectedJournal: string[] = [];

beforeAll(async () => {
  s = await startTestServer();
  const rows: AuditSeed[] = [];
  for (let i = 0; i < 300; i++) {
    // the term "Orchid" in a different field each time, in various cases; most rows lack it
    const hit = i % 4 === 0;
    const where = Math.floor(i / 4) % 6;
    const term = ['orchid', 'ORCHID', 'Orchid', 'oRcHiD'][i % 4];
    rows.push({
      id: `aud_q${String(i).padStart(4, '0')}`,
      actor: { subject: hit && where === 0 ? `${term}.admin@corp` : 'ana@corp', role: 'it_admin' },
      action: hit && where === 1 ? `${term}.sync` : 'channel.update',
      target: {
        type: isKey(i) ? 'gateway_key' : 'channel',
        id: hit && where === 2 ? `key_${term}` : `id_${i}`,
        name: hit && where === 3 ? `${term} billing` : i % 2 ? `name ${i}` : null,
      },
      outcome: 'success',
      status: 200,
      request_id: hit && where === 5 ? `req_${term}` : `req_${i}`,
      source_ip: null,
      details: hit && where === 4 ? { note: `for ${term}` } : { n: i },
      at_ms: BASE + i * 1000,
    });
    // request_id is not searched
    if (hit && where !== 5) expectedAudit.unshift(`aud_q${String(i).padStart(4, '0')}`);
  }
  insertAuditBatch(s.server.db, rows);

  const steps: JournalRecord[] = [];
  for (let i = 0; i < 200; i++) {
    const hit = i % 5 === 0;
    const where = (i / 5) % 6;
    steps.push({
      id: `jrn_q${String(i).padStart(4, '0')}`,
      run_id: hit && where === 0 ? 'run_TULIP_1' : `run_${i}`,
      agent: hit && where === 1 ? 'tulip-bot' : 'hr-assistant',
      channel: hit && where === 5 ? 'chan_tulip' : 'chan_web',
      step: 0,
      tool: hit && where === 2 ? 'Tulip_lookup' : i % 2 ? 'search_docs' : null,
      status: hit && where >= 3 ? 'failed' : 'succeeded',
      started_ms: BASE + i * 1000,
      ended_ms: BASE + i * 1000 + 10,
      input_tokens: 1,
      output_tokens: 1,
      error:
        hit && where === 3
          ? { code: 'tulip_error', message: 'x' }
          : hit && where === 4
            ? { code: 'tool_error', message: 'the TuLiP service answered 500' }
            : null,
    });
    // channel is not searched
    if (hit && where !== 5) expectedJournal.unshift(`jrn_q${String(i).padStart(4, '0')}`);
  }
  insertJournalBatch(s.server.db, steps);
});
afterAll(async () => {
  await s.close();
});

async function allPages(path: string, query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (let i = 0; i < 500; i++) {
    const res = await s.call(
      'GET',
      `${path}?${query}&limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ''}`,
    );
    expect(res.status).toBe(200);
    ids.push(...res.json.data.map((e: { id: string }) => e.id));
    if (!res.json.has_more) return ids;
    after = res.json.next_cursor;
  }
  throw new Error('paging did not end');
}

describe('q on the audit trail', () => {
  it('matches actor, action, target id and name, and details, ignoring case, over every page', async () => {
    expect(expectedAudit.length).toBeGreaterThan(40);
    expect(expectedAudit.filter((id) => isKey(Number(id.slice(5)))).length).toBeGreaterThan(10);
    expect(await allPages('/audit', `${WINDOW}&q=orchid`, 7)).toEqual(expectedAudit);
    expect(await allPages('/audit', `${WINDOW}&q=ORCHID&target_type=gateway_key`, 5)).toEqual(
      expectedAudit.filter((id) => isKey(Number(id.slice(5)))),
    );
  });

  it('binds a cursor to its q: another q is refused', async () => {
    const first = await s.call('GET', `/audit?${WINDOW}&q=orchid&limit=3`);
    expect(first.json.has_more).toBe(true);
    const other = await s.call(
      'GET',
      `/audit?${WINDOW}&q=billing&limit=3&after=${encodeURIComponent(first.json.next_cursor)}`,
    );
    expect(other.status).toBe(400);
    expect(other.json.invalid_params[0].name).toBe('after');
  });

  it('takes % and _ literally', async () => {
    const none = await s.call('GET', `/audit?${WINDOW}&q=${encodeURIComponent('%_')}`);
    expect(none.status).toBe(200);
    expect(none.json.data).toEqual([]);
  });

  it('exports the same rows as the list, with target.name after the CSV columns it had before', async () => {
    const jsonl = await s.call('GET', `/audit/export?format=jsonl&${WINDOW}&q=Orchid`);
    const lines = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((e) => e.id)).toEqual([...expectedAudit].reverse());
    const csv = await s.call('GET', `/audit/export?${WINDOW}&q=orchid%20billing`);
    const [header, ...records] = parse(csv.text) as string[][];
    // target.name came last until the hash chain's seq, prev_hash and hash followed it
    const name = header.indexOf('target.name');
    expect(header.slice(name)).toEqual(['target.name', 'seq', 'prev_hash', 'hash']);
    expect(records.length).toBeGreaterThan(0);
    for (const r of records) expect(r[name].toLowerCase()).toBe('orchid billing');
    const audited = s.server.db
      .prepare("SELECT details FROM audit WHERE action = 'audit.export' ORDER BY seq DESC LIMIT 1")
      .pluck()
      .get() as string;
    expect(JSON.parse(audited).filters.q).toBe('orchid billing');
  });
});

describe('q, tool and error_code on the journal', () => {
  it('matches agent, tool, run id, error code and message, ignoring case, over every page', async () => {
    expect(await allPages('/agent/journal', `${WINDOW}&q=tulip`, 4)).toEqual(expectedJournal);
  });

  it('filters by tool and by error code, in lists and exports', async () => {
    const tool = await allPages('/agent/journal', `${WINDOW}&tool=search_docs`, 30);
    expect(tool).toHaveLength(100);
    const byError = await s.call('GET', `/agent/journal?${WINDOW}&error_code=tool_error`);
    expect(byError.json.data).toHaveLength(expectedJournal.filter((id) => (Number(id.slice(5)) / 5) % 6 === 4).length);
    expect(byError.json.data[0].error).toEqual({ code: 'tool_error', message: 'the TuLiP service answered 500' });
    const exported = await s.call('GET', `/agent/journal/export?format=jsonl&${WINDOW}&error_code=tool_error&q=tulip`);
    expect(
      exported.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(byError.json.data.map((e: { id: string }) => e.id).reverse());
  });

  it('refuses an error that is not a short code and sentence, writing nothing', () => {
    const before = s.server.db.prepare('SELECT count(*) FROM journal').pluck().get();
    const step = {
      run_id: 'run_x',
      agent: 'a',
      channel: 'c',
      step: 0,
      status: 'failed' as const,
      started_ms: BASE,
      input_tokens: 0,
      output_tokens: 0,
    };
    expect(() =>
      recordJournal(s.server.db, { ...step, error: { code: 'tool_error', message: 'x'.repeat(301) } }),
    ).toThrow(TypeError);
    expect(() => recordJournal(s.server.db, { ...step, error: { code: 'Tool Error!', message: 'bad' } })).toThrow(
      TypeError,
    );
    expect(s.server.db.prepare('SELECT count(*) FROM journal').pluck().get()).toBe(before);
  });
});

describe('audit target names', () => {
  const entriesFor = async (query: string) =>
    (await s.call('GET', `/audit?${query}&limit=500`)).json.data as {
      action: string;
      outcome: string;
      target: { type: string; id: string | null; name: string | null };
    }[];

  it('name the key, model, connector, channel and workload as they were called, for success, denied and failed', async () => {
    const key = (await s.call('POST', '/gateway/keys', { body: { name: 'Payroll Sync' } })).json;
    await s.call('PUT', `/gateway/keys/${key.id}/quota`, {
      body: { requests_per_minute: 5, tokens_per_minute: null, tokens_per_day: null },
    });
    expect((await s.call('POST', `/gateway/keys/${key.id}/revoke`, { role: 'auditor' })).status).toBe(403);
    await s.call('POST', `/gateway/keys/${key.id}/revoke`);
    expect(
      (
        await s.call('PUT', `/gateway/keys/${key.id}/quota`, {
          body: { requests_per_minute: 1, tokens_per_minute: null, tokens_per_day: null },
        })
      ).status,
    ).toBe(409);
    const keyEntries = await entriesFor(`target_type=gateway_key&q=${key.id}`);
    expect(keyEntries.map((e) => [e.action, e.outcome, e.target])).toEqual([
      ['gateway.key.quota', 'failed', { type: 'gateway_key', id: key.id, name: 'Payroll Sync' }],
      ['gateway.key.revoke', 'success', { type: 'gateway_key', id: key.id, name: 'Payroll Sync' }],
      ['gateway.key.revoke', 'denied', { type: 'gateway_key', id: key.id, name: 'Payroll Sync' }],
      ['gateway.key.quota', 'success', { type: 'gateway_key', id: key.id, name: 'Payroll Sync' }],
      ['gateway.key.create', 'success', { type: 'gateway_key', id: key.id, name: 'Payroll Sync' }],
    ]);
    // the name is searchable, and an unknown key has none
    expect((await entriesFor('q=payroll%20sync')).length).toBe(5);
    await s.call('POST', '/gateway/keys/key_nonexistent/revoke');
    expect((await entriesFor('q=key_nonexistent'))[0].target).toEqual({
      type: 'gateway_key',
      id: 'key_nonexistent',
      name: null,
    });

    await s.call('POST', '/models/activate', { body: { model_id: 'mistral-7b' } });
    await s.call('PUT', '/routing/chat', { body: { model_id: 'llama-3.1-8b' } });
    await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_mail', enabled: true }] } });
    await s.call('POST', '/connectors', { body: { connector_id: 'conn_erp', source_id: 'src_erp' }, role: 'auditor' });
    const named = (type: string) => entriesFor(`target_type=${type}`).then((list) => list[0].target.name);
    expect(await named('model')).toBe('Mistral 7B Instruct');
    expect(await named('routing')).toBe('chat');
    expect(await named('channel')).toBe('Email');
    expect(await named('connector')).toBe('ERP database');
  });
});
