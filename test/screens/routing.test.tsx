import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/server.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { afterARefresh } from '../helpers/dashboard.js';

const suite = setupScreenSuite();

interface RoutingRow {
  workload: string;
  model_id: string | null;
  updated_at: string | null;
  updated_by: string | null;
}
const routingRow = (workload: string) =>
  suite.db.prepare('SELECT * FROM routing WHERE workload = ?').get(workload) as RoutingRow;

describe('routing screen', () => {
  it('shows each workload, its model or that it follows the active one, and the effective model', async () => {
    const d = suite.render({ screen: 'routing' });
    const f = await d.waitForText('summarize');
    expect(f).toMatch(/chat\s+↻ follows active\s+llama-3\.1-8b\s+never \(config\)\s+–/);
    expect(f).toMatch(/summarize\s+mistral-7b\s+mistral-7b\s+never \(config\)/);
    expect(f).toMatch(/embed\s+↻ follows active\s+llama-3\.1-8b/);
    // the model the followers get, named where no width cuts it (the Effective model column gives way
    // to who changed the route on a short line)
    expect(f).toContain('3 workloads · 2 follow the active model (llama-3.1-8b)');
  });

  it('reroutes a workload to a present model picked from the list (missing models are not offered)', async () => {
    const d = suite.render({ screen: 'routing' });
    await d.waitForText('chat');
    await selectRow(d, 'chat');
    await d.press('e');
    const pick = await d.waitForText('Route workload chat');
    expect(pick).toContain('↻ Follow the active model');
    expect(pick).toContain('Mistral 7B Instruct');
    expect(pick).not.toContain('Not downloaded 70B');
    expect(pick).toContain('1 missing one is left out');
    await d.press('down', 'down', 'enter');
    // like an activation: before → after and the workload it moves, confirmed (Cancel first: Enter sends nothing)
    const confirm = await d.waitForText('Route chat?');
    expect(confirm).toContain('chat: follows the active model → mistral-7b');
    expect(confirm).toContain('Workloads whose effective model changes (1):');
    expect(confirm).toContain('chat: llama-3.1-8b → mistral-7b');
    const audited = suite.auditRows().length;
    await d.press('enter');
    await d.waitFor((x) => !x.includes('Route chat?'), 'the confirmation to close');
    expect(routingRow('chat').model_id).toBeNull();
    expect(suite.auditRows().length).toBe(audited);
    await d.press('e');
    await d.waitForText('Route workload chat');
    await d.press('down', 'down', 'enter');
    await d.waitForText('Route chat?');
    await d.press('right', 'enter');
    const result = await d.waitForText('Audit entry aud_');
    expect(routingRow('chat')).toMatchObject({ model_id: 'mistral-7b', updated_by: 'alice-admin' });
    const entry = suite.auditRows().find((r) => r.action === 'routing.update' && r.outcome === 'success')!;
    expect(result).toContain('chat: follows the active model → mistral-7b.');
    expect(result).toMatch(/change {3}follows the active model → mistral-7b/);
    expect(result).toContain(entry.request_id);
    await d.press('enter');
    await d.waitFor(
      (x) => /chat\s+mistral-7b\s+mistral-7b\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+alice-admin/.test(x),
      'the list to show the new route',
    );
  });

  it('sets a workload back to following the active model (null)', async () => {
    const d = suite.render({ screen: 'routing' });
    await d.waitForText('summarize');
    await selectRow(d, 'summarize');
    await d.press('e');
    await d.waitForText('Route workload summarize');
    expect(d.frame()).toMatch(/Mistral 7B Instruct\s+mistral-7b\s+\(current\)/);
    await d.press('enter'); // the first item: follow the active model
    await d.waitForText('summarize: mistral-7b → llama-3.1-8b');
    await d.press('right', 'enter');
    await d.waitForText('summarize: mistral-7b → follows the active model.');
    expect(routingRow('summarize').model_id).toBeNull();
    await d.press('enter');
    await d.waitFor((x) => /summarize\s+↻ follows active\s+llama-3\.1-8b/.test(x), 'the list to show it follows');
  });

  it('says the change from → to as the appliance made it, also when someone changed the route meanwhile; the audit list reads the same', async () => {
    const d = suite.render({ screen: 'routing', columns: 160 });
    await d.waitForText('embed');
    await selectRow(d, 'embed');
    await d.press('e');
    await d.waitForText('Route workload embed');
    // the list said "follows active"; another operator routes it while the pick is open
    expect((await suite.server.call('PUT', '/routing/embed', { body: { model_id: 'llama-3.1-8b' } })).status).toBe(200);
    await d.press('down', 'down', 'enter'); // Mistral 7B Instruct
    await d.waitForText('Route embed?');
    await d.press('right', 'enter');
    const result = await d.waitForText('Audit entry aud_');
    expect(routingRow('embed').model_id).toBe('mistral-7b');
    expect(result).toContain('embed: llama-3.1-8b → mistral-7b.');
    expect(result).toMatch(/change {3}llama-3\.1-8b → mistral-7b/); // the audit entry's details, in words
    await d.press('enter');
    await d.press(':');
    await d.type('audit');
    await d.press('enter');
    const audit = await d.waitForText('routing.update');
    expect(audit).toMatch(/routing\.update\s+embed: llama-3\.1-8b → mistral-7b\s+● success/);
    expect(audit).toMatch(/routing\.update\s+embed: ↻active → llama-3\.1-8b\s+● success/);
    // Enter on the newest entry (this change) says it first, whatever the width
    await d.resize(80, 24);
    await d.press('enter');
    expect(await d.waitForText('change')).toMatch(/change\s+llama-3\.1-8b → mistral-7b/);
  });

  it('an auditor sees the change disabled with the reason, and pressing it sends nothing', async () => {
    const d = suite.render({ role: 'auditor', screen: 'routing' });
    await d.waitForText('READ-ONLY');
    await d.waitForText('embed');
    expect(d.frame()).toMatch(/e change model ✕.*role auditor is read-only/);
    const audit = suite.auditRows();
    const routing = snapshot(suite.server, 'routing');
    await d.press('e');
    await d.waitForText('change model: disabled: role auditor is read-only. Nothing was sent.');
    expect(d.frame()).not.toContain('Route workload');
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'routing')).toEqual(routing);
  });

  it('routing to a model that went missing after the pick is refused: 422 in plain words, nothing changed', async () => {
    const d = suite.render({ screen: 'routing' });
    await d.waitForText('embed');
    await selectRow(d, 'embed');
    const before = routingRow('embed');
    await d.press('e');
    await d.waitForText('Route workload embed');
    rmSync(suite.server.config.models.find((m) => m.id === 'mistral-7b')!.path);
    await d.press('down', 'down', 'enter');
    await d.waitForText('Route embed?');
    await d.press('right', 'enter');
    const f = await d.waitForText('change model failed');
    const failed = suite
      .auditRows()
      .filter((r) => r.action === 'routing.update' && r.outcome === 'failed')
      .at(-1)!;
    expect(failed.status).toBe(422);
    expect(f).toContain('code SVC-ADMIN-422');
    expect(f).toContain(`request ${failed.request_id}`);
    expect(f).toContain('model mistral-7b is not');
    expect(routingRow('embed')).toEqual(before);
    await d.press('enter');
    // the screen keeps working: the next pick no longer offers the missing model
    await d.press('e');
    const pick = await d.waitForText('Route workload embed');
    expect(pick).not.toContain('Mistral 7B Instruct');
    await d.press('esc');
  });
});
