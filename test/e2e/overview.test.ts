import { afterAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt } from '../helpers/child-server.js';
import { e2eTitle } from '../helpers/e2e.js';
import { tempDir } from '../helpers/fixtures.js';
import { hasTmux, killTmuxServer, TmuxSession } from '../helpers/tmux.js';

/**
 * Issue 25: "the appliance is degraded, but that shows only on the tenth screen". A fresh
 * `npm start` (the built CLI's demo) in a real terminal opens on the overview, which names the
 * failing cloud CRM connector with its reason and the degraded deployment at once (no `r`), and
 * Enter on the connector's line lands on the connectors screen with that connector selected.
 */
const selected = (screen: string) => screen.split('\n').find((l) => l.startsWith('›')) ?? '';
const CRM = /CRIT\s+Connector Cloud CRM.*\s+error: last sync/;

describe.skipIf(!hasTmux())(e2eTitle('the demo opens on the overview'), () => {
  afterAll(killTmuxServer);

  for (const [role, columns, rows] of [
    ['it_admin', 120, 40],
    ['auditor', 80, 24],
  ] as const) {
    it(`as ${role} at ${columns}x${rows}: the failing CRM connector and the degraded deployment first; Enter opens the connector`, async () => {
      await ensureBuilt();
      const t = await TmuxSession.start({
        name: `overview-${role}`,
        command: [process.execPath, CLI, 'demo', '--role', role],
        cols: columns,
        rows,
        env: {
          TMPDIR: tempDir('aa-overview'),
          LANG: 'C.UTF-8',
          LC_ALL: 'C.UTF-8',
          XDG_CACHE_HOME: tempDir('aa-e2e-cache'),
        },
      });
      try {
        const screen = await t.waitForScreen(CRM, 30_000);
        expect(screen).toContain('[overview]');
        expect(screen).toMatch(/WARN\s+Deployment degraded\s+ingestion degraded/);
        // worst first: the cursor is on the connector
        expect(selected(screen)).toMatch(CRM);
        expect(screen).not.toMatch(/DISCONNECTED|failed to draw|✕ ERROR/);
        await t.sendKeys('enter');
        const on = await t.waitUntil(
          (x) => x.includes('[connectors]') && selected(x).includes('Cloud CRM (hosted)'),
          'the connectors screen on the cloud CRM',
        );
        expect(on).toMatch(/Cloud CRM \(hosted\)\s+crm\s+error/);
      } finally {
        await t.kill();
      }
    }, 60_000);
  }
});
