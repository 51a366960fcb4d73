import { describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/server.js';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { afterARefresh } from '../helpers/dashboard.js';

const suite = setupScreenSuite();

const enabled = (id: string) =>
  (suite.db.prepare('SELECT enabled FROM channels WHERE id = ?').get(id) as { enabled: number }).enabled;

describe('channels screen', () => {
  it('shows each channel with an enabled/disabled badge', async () => {
    const d = suite.render({ screen: 'channels' });
    const f = await d.waitForText('Email');
    expect(f).toMatch(/Web chat\s+chan_web\s+● enabled/);
    expect(f).toMatch(/Email\s+chan_mail\s+○ disabled/);
    expect(f).toContain('2 channels · 1 enabled');
    expect(f).toContain('alice-admin (it_admin)');
    expect(f).toMatch(/updated (?:just now|\d+ s ago)/);
  });

  it('toggles a channel only after confirming; Enter alone cancels', async () => {
    const d = suite.render({ screen: 'channels' });
    await d.waitForText('Web chat');
    await selectRow(d, 'Web chat');
    const before = suite.auditRows().length;

    await d.press(' ');
    await d.waitForText('Disable channel Web chat?');
    await d.press('enter'); // the focus starts on Cancel
    await d.waitFor((f) => !f.includes('Disable channel Web chat?'), 'the dialog to close');
    expect(enabled('chan_web')).toBe(1);
    expect(suite.auditRows()).toHaveLength(before);

    await d.press(' ');
    await d.waitForText('Disable channel Web chat?');
    await d.press('right', 'enter');
    const result = await d.waitForText('Audit entry aud_');
    expect(enabled('chan_web')).toBe(0);
    const entry = suite.auditRows().find((r) => r.action === 'channel.update' && r.outcome === 'success');
    expect(entry).toBeDefined();
    expect(result).toContain('Channel disabled');
    expect(result).toContain(entry!.request_id);
    expect(result).toContain('channel.update');
    await d.press('enter');
    await d.waitFor((f) => /Web chat\s+chan_web\s+○ disabled/.test(f), 'the list to show the change');

    // and back
    await d.press(' ');
    await d.waitForText('Enable channel Web chat?');
    await d.press('right', 'enter');
    await d.waitForText('Channel enabled');
    expect(enabled('chan_web')).toBe(1);
  });

  it('an auditor sees the toggle disabled with the reason, and pressing it sends nothing', async () => {
    const d = suite.render({ role: 'auditor', screen: 'channels' });
    const f = await d.waitForText('READ-ONLY');
    await d.waitForText('Web chat');
    expect(d.frame()).toContain('aude-auditor (auditor) READ-ONLY');
    expect(d.frame()).toMatch(/Space toggle ✕.*role auditor is read-only/);
    expect(f).toBeTruthy();
    const audit = suite.auditRows();
    const channels = snapshot(suite.server, 'channels');
    await d.press(' ');
    await d.waitForText('toggle: disabled: role auditor is read-only. Nothing was sent.');
    expect(d.frame()).not.toContain('Disable channel');
    await d.press('?');
    await d.waitForText(/Space\s+toggle \(changes the appliance\) — ✕ role auditor is read-only/);
    await d.press('esc');
    // nothing reached the server: no denied entry, no change
    await afterARefresh(d);
    expect(suite.auditRows()).toEqual(audit);
    expect(snapshot(suite.server, 'channels')).toEqual(channels);
  });

  it('--read-only disables changes even for it_admin', async () => {
    const d = suite.render({ role: 'it_admin', screen: 'channels', readOnly: true });
    await d.waitForText('READ-ONLY (--read-only)');
    await d.waitForText('Web chat');
    const audit = suite.auditRows();
    await d.press(' ');
    await d.waitForText('Nothing was sent.');
    expect(suite.auditRows()).toEqual(audit);
  });
});
