import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONNECTOR_ERROR_CODES, connectorErrorHint } from '../../src/dashboard/rules/connector-errors.js';
import { missingPathReason, readDirectory, readSqlite, remoteSourceError } from '../../src/server/ingest/sources.js';
import { tempDir } from '../helpers/fixtures.js';
import { selectRow, setupScreenSuite } from '../helpers/screen-suite.js';
import { until } from '../helpers/until.js';

/**
 * Issue 39, point 7: Enter on a connector shows the connector (state, last success, the last
 * error whole, RBAC labels) with a hint for a known error, which names its section of
 * docs/connector-errors.md; J opens its jobs. The failures are the real server's own.
 */
let firstJob: string;

const jobOf = (id: string) =>
  (
    suite.db.prepare('SELECT state, error FROM jobs WHERE job_id = ?').get(id) as
      { state: string; error: string | null } | undefined
  )?.state;

async function ingest(connector: string, source: string): Promise<string> {
  const res = await suite.server.call('POST', '/connectors', { body: { connector_id: connector, source_id: source } });
  expect(res.status).toBe(202);
  const id = (res.json as { job_id: string }).job_id;
  await until(`job ${id} to finish`, () => ['succeeded', 'failed'].includes(jobOf(id) ?? ''), 10_000);
  return id;
}

const suite = setupScreenSuite({
  setup: async () => {
    // Team share synced once, then its directory went away: its last sync failed (ENOENT)
    firstJob = await ingest('conn_docs', 'src_docs');
    expect(jobOf(firstJob)).toBe('succeeded');
    rmSync(suite.server.config.connectors[0].sources[0].path!, { recursive: true, force: true });
    expect(jobOf(await ingest('conn_docs', 'src_docs'))).toBe('failed');
    expect(jobOf(await ingest('conn_crm', 'src_crm'))).toBe('failed');
  },
});

/** The detail wraps long values anywhere: compared without spaces. */
const bare = (f: string) => f.replace(/[│\s]+/g, '');
const has = (f: string, text: string) => bare(f).includes(bare(text));

describe('Enter on a connector', () => {
  it('shows it: state, last success, the last error whole, its code, what to do, the docs section, RBAC labels; J its jobs', async () => {
    const d = suite.render({ role: 'auditor', screen: 'connectors', columns: 120, rows: 40 });
    await d.waitForText('Team share');
    await selectRow(d, 'Team share');
    await d.press('enter');
    // the last success is read with the list's next answers: the detail follows them
    const f = await d.waitFor((x) => has(x, `last success`) && has(x, `job ${firstJob}`), 'the last success');
    const docs = suite.server.config.connectors[0].sources[0].path!;
    for (const text of [
      'state error',
      `last error ${docs} does not exist (ENOENT)`,
      'error code ENOENT',
      "what to do the source's path is not on the appliance host",
      'read more docs/connector-errors.md, section ENOENT',
      'RBAC labels staff',
      'J its jobs',
    ])
      expect(has(f, text), text).toBe(true);
    await d.press('J');
    const jobs = await d.waitForText('Jobs of Team share');
    expect(jobs).toMatch(/Team share\s+succeeded/);
    expect(jobs).toMatch(/Team share\s+failed\s+0/);
  });

  it('a connector with no driver: the error whole (with its address), the no-driver hint, never a success', async () => {
    const d = suite.render({ role: 'it_admin', screen: 'connectors', columns: 80, rows: 24 });
    await d.waitForText('Cloud CRM');
    await selectRow(d, 'Cloud CRM');
    await d.press('enter');
    const f = await d.waitFor((x) => has(x, 'last success never'), 'never a success');
    expect(has(f, 'last error no crm driver is installed on this host to reach https://crm.example.invalid')).toBe(
      true,
    );
    expect(has(f, 'error code no-driver')).toBe(true);
    // the detail keeps the screen's keys: J opens the jobs from here too
    await d.press('J');
    await d.waitForText('Jobs of Cloud CRM');
  });
});

describe('docs/connector-errors.md', () => {
  it('has a section per known code', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/connector-errors.md'), 'utf8');
    for (const code of CONNECTOR_ERROR_CODES) expect(doc).toContain(`\n## ${code}\n`);
  });

  it("each reason the server's ingestion gives has its code", async () => {
    const dir = tempDir('aa-conn-errors');
    const file = join(dir, 'plain.txt');
    writeFileSync(file, 'not a database, not a directory');
    const limits = { maxEntries: 10, signal: new AbortController().signal };
    const reason = (p: Promise<unknown>) =>
      p.then(
        () => '',
        (e: Error) => e.message,
      );
    const cases: [string, string][] = [
      [
        remoteSourceError(
          { kind: 'crm' } as Parameters<typeof remoteSourceError>[0],
          { url: 'https://x.invalid' } as Parameters<typeof remoteSourceError>[1],
        ),
        'no-driver',
      ],
      [missingPathReason('/nowhere'), 'ENOENT'],
      [await reason(readDirectory(file, limits)), 'ENOTDIR'],
      [await reason(readSqlite(file, limits)), 'not-sqlite'],
      [await reason(readSqlite(dir, limits)), 'not-sqlite'],
      ['permission denied reading /srv/x (EACCES)', 'EACCES'],
      ['cannot read /srv/x: EIO', 'unreadable'],
      ['sqlite source has no path configured', 'no-path'],
      ['connector or source is no longer configured', 'not-configured'],
      ['interrupted by server shutdown', 'interrupted'],
      ['unexpected error: boom', 'unexpected'],
    ];
    for (const [text, code] of cases) expect(connectorErrorHint(text)?.code, text).toBe(code);
    expect(connectorErrorHint('something new')).toBeNull();
  });
});
