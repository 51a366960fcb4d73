import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { recordAudit } from '../../src/server/audit.js';
import { recordJournal } from '../../src/server/governance/journal-writer.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { AUDIT_CSV_HEADER } from '../helpers/audit-csv.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { screens } from '../../screens/index.js';

const DAY = 86_400_000;
let s: TestServer;
let adminToken: string;
let auditorToken: string;
let out: string;
const conn = (tokenFile: string) => ['--url', s.url, '--token-file', tokenFile];

beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer();
  adminToken = writeTokenFile(s.tokens.it_admin);
  auditorToken = writeTokenFile(s.tokens.auditor);
  out = tempDir('aa-export');
  // Some history: changes, a refusal, an entry from ten days ago, journal steps.
  expect((await s.call('POST', '/gateway/keys', { body: { name: 'ci-bot' } })).status).toBe(201);
  expect((await s.call('PUT', '/channels', { body: { channels: [{ id: 'chan_mail', enabled: true }] } })).status).toBe(
    200,
  );
  expect((await s.call('POST', '/models/activate', { role: 'auditor', body: { model_id: 'mistral-7b' } })).status).toBe(
    403,
  );
  recordAudit(s.server.db, {
    actor: { subject: 'old-admin', role: 'it_admin' },
    action: 'channel.update',
    target: { type: 'channel', id: 'chan_web' },
    outcome: 'success',
    status: 200,
    request_id: 'req_old',
    source_ip: '127.0.0.1',
    details: {},
    at_ms: Date.now() - 10 * DAY,
  });
  const t = Date.now() - 60_000;
  recordJournal(s.server.db, {
    run_id: 'run_a',
    agent: 'helpdesk',
    channel: 'chan_web',
    step: 0,
    tool: null,
    status: 'succeeded',
    started_ms: t,
    ended_ms: t + 500,
    input_tokens: 10,
    output_tokens: 5,
  });
  recordJournal(s.server.db, {
    run_id: 'run_b',
    agent: 'finance',
    channel: 'chan_web',
    step: 0,
    tool: 'sql',
    status: 'failed',
    started_ms: t + 1000,
    ended_ms: t + 1500,
    input_tokens: 7,
    output_tokens: 0,
  });
});
afterAll(async () => {
  await s?.close();
});

/** The whole audit list as the API pages it, newest first. */
async function auditList(
  query = '',
): Promise<{ id: string; seq: number; action: string; outcome: string; actor: { subject: string } }[]> {
  const r = await s.call('GET', `/audit?limit=500${query}`);
  expect(r.status).toBe(200);
  expect(r.json.has_more).toBe(false);
  return r.json.data;
}

/** rows, bytes, path and sha256 from the summary on stderr, checked against the file. */
function checkSummary(stderr: string, file: string, rows: number) {
  const body = readFileSync(file);
  expect(stderr).toMatch(
    new RegExp(`exported ${rows} \\w+ rows? \\(\\w+, ${body.length.toLocaleString('en-US')} bytes\\)`),
  );
  expect(stderr).toContain(`  file       ${file}`);
  expect(stderr).toContain(`  sha256     ${createHash('sha256').update(body).digest('hex')}`);
  // every value starts in one column, the checkpoint's included (an audit export's)
  const starts = stderr
    .split('\n')
    .slice(1)
    .filter((l) => /^ {2}[a-z0-9]+ +\S/.test(l))
    .map((l) => /^ {2}[a-z0-9]+ +/.exec(l)![0].length);
  expect(new Set(starts).size).toBe(1);
}

describe('appliance-admin get', () => {
  it('get connectors --json prints what the server answers, and exits 0', async () => {
    const r = await runCli(['get', 'connectors', '--json', ...conn(adminToken)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const printed = JSON.parse(r.stdout);
    const server = await s.call('GET', '/connectors?limit=500');
    expect(printed).toEqual(server.json);
    expect(printed.data.map((c: { id: string }) => c.id)).toEqual(['conn_docs', 'conn_erp', 'conn_crm']);
  });

  it('a screen with several resources prints an object keyed by resource id (deployment: deployment and plan)', async () => {
    const r = await runCli(['get', 'deployment', '--json', ...conn(auditorToken)]);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout);
    expect(Object.keys(printed)).toEqual(['deployment', 'plan']);
    expect(printed.plan).toEqual((await s.call('GET', '/deployment/install-plan')).json);
    const server = (await s.call('GET', '/deployment')).json;
    expect(printed.deployment).toMatchObject({
      status: server.status,
      version: server.version,
      host: { hostname: server.host.hostname, cpus: server.host.cpus },
    });
  });

  it('reads the token from APPLIANCE_ADMIN_TOKEN too, and prints a plain table without --json', async () => {
    const r = await runCli(['get', 'channels', '--url', s.url], { env: { APPLIANCE_ADMIN_TOKEN: s.tokens.auditor } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('2 channels · 2 enabled');
    expect(lines[2]).toMatch(/^Name\s+ID\s+State\s+Updated$/);
    expect(r.stdout).toMatch(/Web chat\s+chan_web\s+● enabled/);
    expect(r.stdout).toMatch(/Email\s+chan_mail\s+● enabled/);
  });

  it('a bad token: exit 1, the refusal in plain words with code and request id, the token never printed', async () => {
    const bad = 'aat_this-token-is-not-known-0123456789';
    const r = await runCli(['get', 'keys', '--json', ...conn(writeTokenFile(bad))]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/get keys failed: The appliance did not accept the credential/);
    expect(r.stderr).toMatch(/code SVC-ADMIN-401, request req_\w+/);
    expect(r.stdout + r.stderr).not.toContain(bad);
    expect(r.stdout + r.stderr).not.toContain('this-token-is-not-known');
  });

  it('an unreachable appliance is exit 1 in plain words', async () => {
    const r = await runCli(['get', 'keys', '--url', 'http://127.0.0.1:9', '--token-file', adminToken]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot reach the appliance \(connection refused\)/);
  });

  it('an unknown screen is exit 2 with the screen names; so is a missing one', async () => {
    const r = await runCli(['get', 'nope', '--json', ...conn(adminToken)]);
    expect(r.code).toBe(2);
    const names = screens.map((x) => x.name).join(', ');
    expect(names).toMatch(/^overview, connectors, channels, keys/);
    expect(r.stderr).toContain(`unknown screen "nope"; the screens are: ${names}\n`);
    const none = await runCli(['get', '--json', ...conn(adminToken)]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`name one screen: ${names}\n`);
  });
});

describe('appliance-admin export', () => {
  it('export audit --format csv: the file reads back with csv-parse and matches the audit list', async () => {
    const file = join(out, 'audit.csv');
    const r = await runCli(['export', 'audit', '--format', 'csv', '-o', file, ...conn(auditorToken)]);
    expect(r.code, r.stderr).toBe(0);
    const records = parse(readFileSync(file, 'utf8')) as string[][];
    const [header, ...rows] = records;
    expect(header).toEqual(AUDIT_CSV_HEADER);
    // The export is itself audited, and the file (in the order written: the audit chain's) ends with that entry;
    // what was written after it (a minute's 401s, written when the minute ends) is not in it
    const upTo = Number(rows[rows.length - 1][13]);
    const list = (await auditList()).filter((e) => e.seq <= upTo);
    expect(rows.map((x) => x[0])).toEqual([...list].sort((a, b) => a.seq - b.seq).map((e) => e.id));
    const last = rows[rows.length - 1];
    expect([last[2], last[4], last[7]]).toEqual(['aude-auditor', 'audit.export', 'success']);
    expect(rows.map((x) => `${x[2]} ${x[4]} ${x[7]}`)).toEqual(
      expect.arrayContaining([
        'alice-admin gateway.key.create success',
        'alice-admin channel.update success',
        'aude-auditor model.activate denied',
        'old-admin channel.update success',
      ]),
    );
    checkSummary(r.stderr, file, rows.length);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('export audit --format jsonl with --outcome: one JSON object a line, only the matching rows', async () => {
    const file = join(out, 'denied.jsonl');
    const r = await runCli([
      'export',
      'audit',
      '--format',
      'jsonl',
      '--outcome',
      'denied',
      '-o',
      file,
      ...conn(adminToken),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const denied = await auditList('&outcome=denied');
    expect(lines.map((e) => e.id)).toEqual(denied.map((e) => e.id).reverse());
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((e) => e.outcome === 'denied')).toBe(true);
    checkSummary(r.stderr, file, lines.length);
  });

  it('--since 7d leaves out older entries; --since/--until with RFC 3339 times select a window', async () => {
    const recent = join(out, 'recent.jsonl');
    const r = await runCli([
      'export',
      'audit',
      '--format',
      'jsonl',
      '--since',
      '7d',
      '-o',
      recent,
      ...conn(adminToken),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ids = readFileSync(recent, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(ids.some((e) => e.request_id === 'req_old')).toBe(false);
    expect(ids.some((e) => e.action === 'gateway.key.create')).toBe(true);

    const from = new Date(Date.now() - 11 * DAY).toISOString();
    const to = new Date(Date.now() - 9 * DAY).toISOString().replace(/\.\d+Z$/, '+00:00');
    const window = join(out, 'window.csv');
    const w = await runCli(['export', 'audit', '--since', from, '--until', to, '-o', window, ...conn(adminToken)]);
    expect(w.code, w.stderr).toBe(0);
    const rows = (parse(readFileSync(window, 'utf8')) as string[][]).slice(1);
    expect(rows.map((x) => x[9])).toEqual(['req_old']);
    checkSummary(w.stderr, window, 1);
  });

  it('export journal with --agent: csv of the matching steps', async () => {
    const file = join(out, 'journal.csv');
    const r = await runCli(['export', 'journal', '--agent', 'finance', '-o', file, ...conn(auditorToken)]);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = parse(readFileSync(file, 'utf8')) as string[][];
    const at = (name: string) => header.indexOf(name);
    expect(rows.map((x) => [x[at('run_id')], x[at('agent')], x[at('status')]])).toEqual([
      ['run_b', 'finance', 'failed'],
    ]);
    checkSummary(r.stderr, file, 1);
  });

  it('refuses to overwrite an existing file unless --force', async () => {
    const file = join(out, 'keep.csv');
    writeFileSync(file, 'precious\n');
    const r = await runCli(['export', 'audit', '-o', file, ...conn(adminToken)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already exists; choose another file or add --force/);
    expect(readFileSync(file, 'utf8')).toBe('precious\n');
    const forced = await runCli(['export', 'audit', '-o', file, '--force', ...conn(adminToken)]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^id,at,actor.subject/);
  });

  it('export audit --request-id: the one entry that request produced', async () => {
    const file = join(out, 'one-request.jsonl');
    const r = await runCli([
      'export',
      'audit',
      '--format',
      'jsonl',
      '--request-id',
      'req_old',
      '-o',
      file,
      ...conn(adminToken),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      request_id: 'req_old',
      action: 'channel.update',
      actor: { subject: 'old-admin' },
    });
    checkSummary(r.stderr, file, 1);
  });

  it('bad usage is exit 2 and writes nothing; an appliance refusal is exit 1 and leaves no file', async () => {
    const file = join(out, 'never.csv');
    for (const args of [
      ['export', 'audit', '--agent', 'x', '-o', file],
      ['export', 'audit', '--outcome', 'maybe', '-o', file],
      ['export', 'audit', '--since', 'yesterday', '-o', file],
      ['export', 'audit', '--since', '1d', '--until', '2d', '-o', file],
      ['export', 'audit', '--format', 'xml', '-o', file],
      ['export', 'audit', '--request-id', 'not one', '-o', file],
      ['export', 'journal', '--request-id', 'req_old', '-o', file],
      ['export', 'everything', '-o', file],
      ['export', 'audit'],
    ]) {
      const r = await runCli([...args, ...conn(adminToken)]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^appliance-admin: /);
    }
    const bad = await runCli(['export', 'audit', '-o', file, ...conn(writeTokenFile('aat_wrong'))]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/export audit failed: .*credential[\s\S]*code SVC-ADMIN-401, request req_/);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.part`)).toBe(false);
  });
});
