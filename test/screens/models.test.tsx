import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/server.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { afterARefresh } from '../helpers/dashboard.js';

const suite = setupScreenSuite();

const storedActive = () =>
  suite.db.prepare("SELECT value FROM app_state WHERE key = 'active_model'").pluck().get() as string | undefined;

describe('models screen', () => {
  it('shows every model with parameters, quantization, size, state and the active one marked in words', async () => {
    const d = suite.render({ screen: 'models' });
    const f = await d.waitForText('Not downloaded 70B');
    expect(f).toMatch(
      /Llama 3\.1 8B Instruct\s+● present\s+◆ ACTIVE\s+–\s+8\.0 B\s+q4_k_m\s+2\.0 KiB\s+llama\s+llama-3\.1-8b/,
    );
    expect(f).toMatch(/Mistral 7B Instruct\s+● present\s+–\s+7\.2 B\s+q5_k_m\s+4\.0 KiB\s+mistral/);
    expect(f).toMatch(/Not downloaded 70B\s+✕ missing\s+–\s+70\.0 B\s+q4_k_m\s+–/);
    expect(f).toContain('3 models · active: Llama 3.1 8B Instruct · 1 missing on disk · no pricing configured');
    // one row of the table is marked (the line under it says the cursor row again)
    expect(f.split('\n').filter((l) => /^[› ] \S/.test(l) && l.includes('ACTIVE'))).toHaveLength(1);
  });

  it('offers no activation for a missing or already active model, and says why', async () => {
    const d = suite.render({ screen: 'models' });
    await d.waitForText('Not downloaded 70B');
    const audit = suite.auditRows();
    await selectRow(d, 'Not downloaded');
    await d.press('a');
    await d.waitForText('activate: its files are not on the appliance');
    await d.press('esc');
    await selectRow(d, 'Llama');
    await d.press('a');
    await d.waitForText('activate: it is already the active model');
    expect(suite.auditRows()).toEqual(audit);
  });

  it('activates a model after confirming (Cancel is the default); the list then shows it active', async () => {
    const d = suite.render({ screen: 'models' });
    await d.waitForText('Mistral 7B Instruct');
    await selectRow(d, 'Mistral');
    await d.press('a');
    await d.waitForText('Activate Mistral 7B Instruct?');
    await d.press('enter'); // Cancel
    await d.waitFor((f) => !f.includes('Activate Mistral'), 'the dialog to close');
    expect(storedActive()).toBeUndefined();

    await d.press('a');
    // before → after, and the workloads that follow the active model named with their move
    const confirm = await d.waitForText('Activate Mistral 7B Instruct?');
    expect(confirm).toContain('Active model: llama-3.1-8b → mistral-7b');
    expect(confirm).toContain('Workloads whose effective model changes (2):');
    expect(confirm).toContain('chat: llama-3.1-8b → mistral-7b');
    expect(confirm).toContain('embed: llama-3.1-8b → mistral-7b');
    expect(confirm).toContain('1 workload routed to a specific model keeps it.');
    await d.press('right', 'enter');
    const result = await d.waitForText('Audit entry aud_');
    expect(storedActive()).toBe('mistral-7b');
    const entry = suite.auditRows().find((r) => r.action === 'model.activate' && r.outcome === 'success')!;
    expect(result).toContain('Model activated');
    expect(result).toContain('Previously active: llama-3.1-8b.');
    expect(result).toContain(entry.request_id);
    await d.press('enter');
    await d.press('esc'); // clear the filter
    await d.waitFor(
      (f) =>
        /Mistral 7B Instruct\s+● present\s+◆ ACTIVE/.test(f) &&
        !/Llama 3\.1 8B Instruct\s+● present\s+◆ ACTIVE/.test(f),
      'the list to mark Mistral active',
    );
    expect((await suite.server.call('GET', '/models')).json.data.find((m: { active: boolean }) => m.active).id).toBe(
      'mistral-7b',
    );
  });

  it('an auditor sees activate disabled with the reason, and pressing it sends nothing', async () => {
    const d = suite.render({ role: 'auditor', screen: 'models' });
    await d.waitForText('READ-ONLY');
    await d.waitForText('Llama 3.1 8B Instruct');
    await selectRow(d, 'Llama');
    expect(d.frame()).toMatch(/a activate ✕.*role auditor is read-only/);
    const audit = suite.auditRows();
    const state = snapshot(suite.server, 'app_state');
    await d.press('a');
    await d.waitForText('activate: disabled: role auditor is read-only. Nothing was sent.');
    expect(d.frame()).not.toContain('Activate Llama');
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'app_state')).toEqual(state);
  });

  it('a model deleted from disk between the list and the activation is refused: 422 in plain words', async () => {
    const d = suite.render({ screen: 'models' });
    await d.waitForText('Llama 3.1 8B Instruct');
    await selectRow(d, 'Llama');
    await d.press('a');
    await d.waitForText('Activate Llama 3.1 8B Instruct?');
    rmSync(suite.server.config.models.find((m) => m.id === 'llama-3.1-8b')!.path);
    await d.press('right', 'enter');
    const f = await d.waitForText('activate failed');
    const failed = suite
      .auditRows()
      .filter((r) => r.action === 'model.activate' && r.outcome === 'failed')
      .at(-1)!;
    expect(failed.status).toBe(422);
    expect(f).toContain('code SVC-ADMIN-422');
    expect(f).toContain(`request ${failed.request_id}`);
    expect(f).toContain('model llama-3.1-8b is not');
    expect(storedActive()).toBe('mistral-7b');
    await d.press('enter');
    await d.press('esc');
    // the screen keeps working and now shows the model missing
    await d.waitFor((x) => /Llama 3\.1 8B Instruct\s+✕ missing/.test(x), 'llama to show missing', 8000);
  });
});
