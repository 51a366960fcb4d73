import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Database } from 'better-sqlite3';
import { snapshot, startTestServer, type TestServer } from './server.js';
import { renderDashboard, type DashboardHarness, type DashboardOptions } from './dashboard.js';

interface AuditRow {
  seq: number;
  id: string;
  at: string;
  at_ms: number;
  actor_subject: string;
  actor_role: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  outcome: 'success' | 'denied' | 'failed';
  status: number;
  request_id: string;
  source_ip: string | null;
  details: string;
}

export interface ScreenSuite {
  /** the file's server, started before its first test and closed after its last */
  readonly server: TestServer;
  readonly db: Database;
  /** renders the dashboard (against the file's server unless told otherwise); unmounted after the test */
  render(o?: DashboardOptions): DashboardHarness;
  /** unmounts the dashboard now, for a test that must close a peer it talks to */
  unmount(): Promise<void>;
  /** the audit table, oldest first */
  auditRows(): AuditRow[];
}

export interface ScreenSuiteOptions {
  /** starts the server (default: startTestServer() with the fixture config) */
  start?: () => Promise<TestServer>;
  /** seeds the started server before the first test */
  setup?: (server: TestServer) => void | Promise<void>;
}

/** One module-level server and one dashboard per test, the way every screen test uses them. */
export function setupScreenSuite(opts: ScreenSuiteOptions = {}): ScreenSuite {
  let server: TestServer | undefined;
  let current: DashboardHarness | undefined;
  const started = () => {
    if (!server) throw new Error('the screen suite server is not started yet (use it inside a test or hook)');
    return server;
  };
  const unmount = async () => {
    await current?.unmount();
    current = undefined;
  };

  beforeAll(async () => {
    server = await (opts.start ?? startTestServer)();
    await opts.setup?.(server);
  });
  afterEach(unmount);
  afterAll(async () => {
    await server?.close();
  });

  return {
    get server() {
      return started();
    },
    get db() {
      return started().server.db;
    },
    render(o = {}) {
      current = renderDashboard({ server: started(), ...o });
      return current;
    },
    unmount,
    auditRows: () => snapshot(started(), 'audit') as AuditRow[],
  };
}

/** Puts the cursor on a row by filtering for it. */
export async function selectRow(h: DashboardHarness, text: string) {
  await h.press('/');
  await h.type(text);
  await h.press('enter');
  await h.waitFor((f) => f.split('\n').some((l) => l.startsWith('›') && l.includes(text)), `row ${text} selected`);
}
