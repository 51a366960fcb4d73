import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { TriageLine } from '../../src/dashboard/triage/line.js';
import { overviewScreen } from '../../screens/overview.js';
import { EMPTY_SCREEN_STATE } from '../../src/dashboard/kit/screen-state.js';

/** the overview's sources: a monitor's line counts them */
const SOURCES = overviewScreen.resources(EMPTY_SCREEN_STATE).length;

/**
 * `appliance-admin get overview`: the overview's triage lines (the same triage() the screen
 * draws), not the eleven raw answers, on the demo appliance (a failing cloud CRM connector, the
 * deployment degraded).
 */
let s: TestServer;
let token: string;
const conn = () => ['--url', s.url, '--token-file', token];

/** The resources whose routes answer 503 until the appliance implements them. */
const NEW_ROUTES = {
  failuresByError: '/agent/journal/summary?group_by=agent',
  denied: '/audit/summary',
  budgetUsage: '/agent/budgets/usage',
} as const;

beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer({ demo: true });
  token = writeTokenFile(s.tokens.it_admin);
});
afterAll(async () => {
  await s?.close();
});

describe('appliance-admin get overview', () => {
  it('--json prints the triage lines, worst first, each with its reason, window and link', async () => {
    const r = await runCli(['get', 'overview', '--json', ...conn()]);
    // a CRIT line: CRITICAL, as a monitoring plugin says it (test/cli/watch.test.ts has the others)
    expect(r.code, r.stderr).toBe(2);
    const lines = JSON.parse(r.stdout) as TriageLine[];
    expect(Array.isArray(lines)).toBe(true);
    const byKey = new Map(lines.map((l) => [l.key, l]));
    expect(byKey.get('connector:conn_crm')).toMatchObject({
      severity: 'crit',
      what: 'Connector Cloud CRM',
      count: null,
      window: 'now',
      link: { screen: 'connectors', select: 'conn_crm' },
    });
    expect(byKey.get('connector:conn_crm')?.reason).toMatch(/^error: last sync failed/);
    expect(byKey.get('component:ingestion')).toMatchObject({
      severity: 'warn',
      what: 'Deployment degraded',
      link: { screen: 'deployment' },
    });
    const order = ['crit', 'warn', 'unknown', 'ok'];
    expect(lines.map((l) => order.indexOf(l.severity))).toEqual(
      lines.map((l) => order.indexOf(l.severity)).sort((a, b) => a - b),
    );
    // a route the appliance does not answer yet is a line saying so, not a failed command
    for (const [id, path] of Object.entries(NEW_ROUTES)) {
      const status = (await s.call('GET', path)).status;
      if (status === 503) expect(byKey.get(`source:${id}`)?.reason).toMatch(/^failed to load: SVC-ADMIN-503/);
      else expect(byKey.has(`source:${id}`)).toBe(false);
    }
  });

  it('without --json: the status line for a monitor, then the board as a plain table', async () => {
    const r = await runCli(['get', 'overview', ...conn()]);
    expect(r.code, r.stderr).toBe(2);
    const [status, ...board] = r.stdout.split('\n');
    expect(status).toMatch(
      new RegExp(
        `^APPLIANCE CRITICAL - 1 critical, \\d+ warnings? \\| crit=1;;;0 warn=\\d+;;;0 unknown=0;;;0;${SOURCES}$`,
      ),
    );
    expect(board.join('\n')).toMatch(/^\d+ things? need/);
    expect(r.stdout).toMatch(/State\s+What\s+Reason\s+Count · window/);
    expect(r.stdout).toMatch(/✕ CRIT\s+Connector Cloud CRM\s+error: last sync failed/);
    // the lines already say what each resource gave: no raw dump after them
    expect(r.stdout).not.toContain('connectors:');
  });

  it('a refused token fails the command (UNKNOWN, exit 3) instead of making a board of refusals', async () => {
    const r = await runCli([
      'get',
      'overview',
      '--json',
      '--url',
      s.url,
      '--token-file',
      writeTokenFile('not-a-token'),
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
  });
});
