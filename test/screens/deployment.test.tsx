import { describe, expect, it } from 'vitest';
import type { Deployment, InstallPlan } from '../../src/contract/index.js';
import { bytes } from '../../src/dashboard/kit/format.js';
import { widthOf } from '../../src/dashboard/kit/text.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { fixtureConfig } from '../helpers/fixtures.js';

const suite = setupScreenSuite();

const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const MARK: Record<string, string> = {
  healthy: '●',
  done: '●',
  degraded: '▲',
  blocked: '▲',
  installing: '◌',
  pending: '◌',
  down: '✕',
};

async function fetchBoth(server: TestServer) {
  const dep = (await server.call('GET', '/deployment')).json as Deployment;
  const plan = (await server.call('GET', '/deployment/install-plan')).json as InstallPlan;
  return { dep, plan };
}

describe('deployment screen', () => {
  it('shows status, version, host facts, components, the install plan and its requirements', async () => {
    const { dep, plan } = await fetchBoth(suite.server);
    const d = suite.render({ screen: 'deployment', rows: 70 });
    const f = await d.waitForText('Requirements');
    expect(f).toMatch(new RegExp(`Deployment\\s+${MARK[dep.status]} ${dep.status}\\s+version ${esc(dep.version)}`));
    expect(f).toMatch(/checked \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+ s ago\)/);
    // SHA256: and the fingerprint's first 16 hex digits in groups of 4
    const shown = `SHA256:${dep.audit_key_fingerprint!.slice(0, 16).replace(/(.{4})(?!$)/g, '$1 ')}`;
    expect(f).toContain(`audit checkpoints signed by ${shown}`);
    expect(f).toMatch(new RegExp(`hostname\\s+${esc(dep.host.hostname)}`));
    expect(f).toMatch(new RegExp(`cpus\\s+${dep.host.cpus}\\b`));
    expect(f).toMatch(new RegExp(`memory\\s+${esc(bytes(dep.host.memory_bytes))}`));
    expect(f).toMatch(new RegExp(`free disk\\s+${esc(bytes(dep.host.disk_free_bytes))}`));
    expect(f).toMatch(
      dep.host.accelerators.length
        ? new RegExp(`accelerators\\s+${esc(dep.host.accelerators[0].name)}`)
        : /accelerators\s+none/,
    );
    for (const c of dep.components) {
      expect(f).toMatch(
        new RegExp(
          `${MARK[c.status]} ${c.status}\\s+${esc(c.name)}\\s+${esc(c.version ?? '–')}${c.message ? `\\s+${esc(c.message.slice(0, 20))}` : ''}`,
        ),
      );
    }
    const done = plan.steps.filter((x) => x.status === 'done').length;
    expect(f).toContain(`Install plan   ${done} of ${plan.steps.length} steps done`);
    for (const step of plan.steps)
      expect(f).toMatch(new RegExp(`${MARK[step.status]} ${step.status}\\s+${esc(step.title)}`));
    expect(f).toMatch(/◌ pending\s+Single sign-on\s+not configured/);
    for (const r of plan.requirements) {
      expect(f).toMatch(
        new RegExp(`${esc(r.name)}\\s+${esc(r.required)}\\s+${esc(r.actual)}\\s+${r.ok ? '● ok' : '✕ not met'}`),
      );
    }
    expect(f).not.toContain('lines 1–'); // it all fits: no scrolling
  });

  it('an unmet requirement and a blocked step read as such (no colour needed)', async () => {
    const big = await startTestServer({
      config: (root) =>
        fixtureConfig(root, {
          requirements: { cpus: 4096, memory_bytes: 2 ** 50, disk_free_bytes: 1, accelerators: 0 },
        }),
    });
    try {
      const { dep, plan } = await fetchBoth(big);
      const d = suite.render({ server: big, screen: 'deployment', rows: 70 });
      const f = await d.waitForText('Requirements');
      expect(f).toMatch(/cpus\s+4096\s+\d+\s+✕ not met/);
      expect(f).toMatch(/Requirements\s+2 not met/);
      expect(f).toMatch(/disk_free\s+\S+ \S+\s+\S+ \S+\s+● ok/);
      const blocked = plan.steps.find((x) => x.status === 'blocked');
      if (blocked) expect(f).toMatch(new RegExp(`▲ blocked\\s+${esc(blocked.title)}`));
      expect(f).toMatch(new RegExp(`Deployment\\s+${MARK[dep.status]} ${dep.status}`));
    } finally {
      await suite.unmount();
      await big.close();
    }
  });

  it('at 80x24 a component that is not healthy is in sight at once, above the healthy ones', async () => {
    const failing = await startTestServer();
    try {
      const list = (await failing.call('GET', '/connectors')).json as { data: { id: string }[] };
      const id = list.data[0].id;
      failing.server.db
        .prepare(
          "INSERT OR REPLACE INTO connector_state (connector_id, state, last_sync_status) VALUES (?, 'error', 'failed')",
        )
        .run(id);
      const d = suite.render({ server: failing, screen: 'deployment', columns: 80, rows: 24 });
      const f = await d.waitFor((x) => /lines 1–\d+ of \d+/.test(x) && x.includes('Components'), 'the first page');
      expect(f).toMatch(new RegExp(`▲ degraded\\s+ingestion\\s+\\S+\\s+last sync failed for ${esc(id)}`));
      const lines = f.split('\n');
      const header = lines.findIndex((l) => /Status\s+Name\s+Version/.test(l));
      expect(lines[header + 1]).toContain('▲ degraded');
    } finally {
      await suite.unmount();
      await failing.close();
    }
  });

  it('fits 80 columns and scrolls with the arrows when taller than the screen', async () => {
    const d = suite.render({ screen: 'deployment', columns: 80, rows: 24 });
    // both resources loaded: the install plan makes it much taller than 24 lines
    const f = await d.waitFor((x) => Number(/lines 1–\d+ of (\d+)/.exec(x)?.[1]) > 30, 'the whole page');
    for (const line of f.split('\n')) expect(widthOf(line)).toBeLessThanOrEqual(80);
    const total = Number(/lines 1–\d+ of (\d+)/.exec(f)![1]);
    await d.press('end');
    const end = await d.waitForText(new RegExp(`lines \\d+–${total} of ${total}`));
    expect(end).toMatch(/sqlite\s+available/);
    const first = Number(/lines (\d+)–/.exec(end)![1]);
    await d.press('up'); // moves at once: End did not leave the offset far below the content
    await d.waitForText(`lines ${first - 1}–${total - 1} of ${total}`);
    await d.press('pgdn');
    await d.waitForText(new RegExp(`lines \\d+–${total} of ${total}`));
    await d.press('home');
    await d.waitForText(/lines 1–\d+ of/);
    expect(d.frame()).toContain('Deployment');
  });

  it('an auditor sees the same and has nothing to change', async () => {
    const d = suite.render({ role: 'auditor', screen: 'deployment', rows: 70 });
    await d.waitForText('READ-ONLY');
    const f = await d.waitForText('Requirements');
    expect(f).toContain('Install plan');
    expect(f).not.toContain('✕ role');
  });

  it('a refused request shows in plain words with code and request id', async () => {
    const { issueToken, revokeToken } = await import('../../src/server/tokens.js');
    const { token } = issueToken(suite.db, 'auditor', 'gone-auditor');
    revokeToken(suite.db, 'gone-auditor');
    const d = suite.render({ token, screen: 'deployment' });
    const f = await d.waitForText(/code SVC-ADMIN-401 · request req_\w+/);
    expect(f).toContain('ERROR loading deployment: The appliance did not accept the credential');
    expect(f).toContain('No data: the request failed');
  });
});
