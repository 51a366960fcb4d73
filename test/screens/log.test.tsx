import { describe, expect, it } from 'vitest';
import { setupScreenSuite, selectRow } from '../helpers/screen-suite.js';
import { startTestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/fixtures.js';

const secrets: string[] = [];
const suite = setupScreenSuite({
  setup: async (s) => {
    for (const name of ['log-seeded', 'log-revoke']) {
      const res = await s.call('POST', '/gateway/keys', { body: { name } });
      expect(res.status).toBe(201);
      secrets.push((res.json as { secret: string }).secret);
    }
  },
});
const keyId = (name: string) =>
  (suite.db.prepare('SELECT id FROM gateway_keys WHERE name = ?').get(name) as { id: string }).id;
const selectedLine = (f: string) => f.split('\n').find((l) => l.startsWith('›')) ?? '';

describe('log screen (the action log)', () => {
  it('shows a revoke and a refused create with their commands, no GET poll, no token or secret', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('log-revoke');
    await selectRow(d, 'log-revoke');
    await d.press('x');
    await d.waitForText('Type log-revoke to confirm');
    await d.type('log-revoke');
    await d.press('enter');
    await d.waitForText('Key revoked');
    await d.press('enter');
    // a second live key of the same name is refused (409): logged too
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('log-seeded');
    await d.press('enter');
    await d.waitForText('SVC-ADMIN-409');
    await d.press('enter');
    await d.waitForText('Not accepted');
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Create a gateway key'), 'the form to close');

    await d.press(':');
    await d.type('log');
    await d.press('enter');
    const id = keyId('log-revoke');
    const f = await d.waitForText(`/gateway/keys/${id}/revoke`);
    expect(f).toContain('2 requests since the dashboard started · 1 failed');
    expect(f).toMatch(new RegExp(`POST\\s+/gateway/keys/${id}/revoke\\s+200`));
    expect(f).toMatch(/POST\s+\/gateway\/keys\s+409/);
    expect(f).not.toMatch(/\bGET\b/); // the polls of the keys list are not actions

    // Enter: the audit entry the revoke produced, beside the request, its status and its command
    await selectRow(d, 'revoke');
    await d.press('enter');
    const entry = await d.waitForText('Audit entry #');
    const revoke = suite.db
      .prepare("SELECT seq, id, request_id, hash FROM audit WHERE action = 'gateway.key.revoke' AND target_id = ?")
      .get(id) as { seq: number; id: string; request_id: string; hash: string };
    expect(entry).toContain(`Audit entry #${revoke.seq} (${revoke.id})`);
    expect(entry).toMatch(/Action\s+gateway\.key\.revoke/);
    expect(entry).toMatch(new RegExp(`Target\\s+log-revoke \\(gateway_key ${id}\\)`));
    expect(entry).toMatch(/Outcome\s+success, HTTP 200/);
    expect(entry).toMatch(new RegExp(`Request id\\s+${revoke.request_id}`));
    expect(entry).toContain('a audit screen · y copy command');
    // the dialog wraps the command and the hash: compared without its spaces, colours and borders
    const flat = entry.replace(/\x1b\[[0-9;]*m|[│\s]/g, '');
    const url = `${suite.server.url}/v1/admin/gateway/keys/${id}/revoke`;
    expect(flat).toContain(`curl-XPOST-H"Authorization:Bearer$TOKEN"'${url}'`);
    expect(flat).toContain('setthevariableTOKENtoyourtokenfirst');
    expect(flat).toContain(`Hash${revoke.hash}`);
    // the command's wrapped lines stay under its label, indented, never back at the dialog's edge
    const box = entry.split('\n').map((l) => /│ (.*?)\s*│$/.exec(l)?.[1] ?? '');
    const from = box.findIndex((l) => l.startsWith('Command'));
    const to = box.findIndex((l) => l.includes('set the variable TOKEN'));
    expect(to - from).toBeGreaterThan(1); // the command wraps at this width
    for (const l of box.slice(from + 1, to + 1)) expect(l, l).toMatch(/^ {2}/);

    // `a` there: the audit screen, filtered to that request id, on that entry
    await d.press('a');
    const audit = await d.waitFor((x) => selectedLine(x).includes('gateway.key.revoke'), 'the revoke audit entry');
    expect(selectedLine(audit)).toContain('log-revoke');
    expect(audit).toContain(`request id ${revoke.request_id}`);
    expect(d.deps.ui.getState().screen).toBe('audit');
    expect(d.deps.ui.getState().screens.audit?.extra).toMatchObject({ filters: { request_id: revoke.request_id } });
    await d.waitForText('1 audit entry in all');

    // the refused create was audited too, as a failure
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    await d.waitForText('[log]');
    await selectRow(d, '409');
    await d.press('enter');
    const refused = await d.waitForText('Audit entry #');
    expect(refused).toMatch(/Action\s+gateway\.key\.create/);
    expect(refused).toMatch(/Outcome\s+failed, HTTP 409/);
    await d.press('esc');
    await d.waitFor((x) => !x.includes('Audit entry #'), 'the entry to close');

    // at 80x24 the row keeps method, path and status, and the hints keep help and quit
    await d.resize(80, 24);
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    const narrow = await d.waitForText('[log]');
    expect(narrow).toMatch(new RegExp(`POST\\s+/gateway/keys/${id}/revoke\\s+200`));
    expect(narrow).toContain('? help');
    expect(narrow).toContain('q quit');
    // the entry's dialog keeps its keys on its footer at 80x24 too
    await d.press('enter');
    await d.waitForText('a audit screen · y copy command · ↑↓ scroll · Enter/Esc close');
    await d.press('esc');

    const all = d.allFrames();
    for (const s of [...secrets, ...Object.values(suite.server.tokens)]) expect(all).not.toContain(s);
  });

  it('says in words why a request that got no answer has no audit entry', async () => {
    const other = await startTestServer();
    expect((await other.call('POST', '/gateway/keys', { body: { name: 'lost-key' } })).status).toBe(201);
    const d = suite.render({ server: other, screen: 'keys' });
    await d.waitForText('lost-key');
    await other.close();
    await d.press('x');
    await d.waitForText('Type lost-key to confirm');
    await d.type('lost-key');
    await d.press('enter');
    await d.waitForText('revoke failed');
    await d.press('enter');
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    await d.waitFor((x) => /POST\s+\/gateway\/keys\/\S+\/revoke\s+none/.test(x), 'the revoke with no answer');
    await d.press('enter');
    const f = await d.waitForText('No audit entry: no answer came');
    expect(f).toMatch(/Status\s+no answer/);
    expect(f).toContain('y copy command · Enter/Esc close');
    expect(f).not.toContain('a audit screen');
  });

  it('an auditor opens the audit entry of an export from the log, and the audit screen on it', async () => {
    const d = suite.render({ screen: 'audit', role: 'auditor', exportFolder: tempDir('aa-log-export') });
    await d.waitForText('READ-ONLY');
    await d.press('w');
    await d.waitForText('Export the audit trail');
    await d.press('enter');
    await d.waitForText('Export written', 10_000);
    await d.press('enter');
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    await d.waitFor((x) => /GET\s+\/audit\/export\S*\s+200/.test(x), 'the export logged');
    await d.press('enter');
    const entry = await d.waitForText('Audit entry #');
    expect(entry).toMatch(/Action\s+audit\.export/);
    expect(entry).toMatch(/Actor\s+aude-auditor \(auditor\)/);
    // the CLI's form names where the credential goes, and says to fill it in (it holds no token)
    const flat = entry.replace(/\x1b\[[0-9;]*m|[│\s]/g, '');
    expect(flat).toMatch(/Commandappliance-adminexportaudit-o\S*--token-fileFILEreplaceFILE/);
    expect(flat).toContain('replaceFILEwiththepathofyourtokenfile');
    await d.press('a');
    await d.waitFor((x) => selectedLine(x).includes('audit.export'), 'the export entry selected');
    await d.waitForText('1 audit entry in all');
  });

  it("an auditor's V is in the log: the export it read and verified, with no file to name", async () => {
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 160 });
    await d.waitForText(/chain checks out/);
    await d.press('V');
    await d.waitForText('Audit trail verified', 10_000);
    await d.press('esc');
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    // the appliance audited it as an export (audit.export): the log says the request was sent
    const f = await d.waitFor((x) => /GET\s+\/audit\/export\?format=jsonl\s+200/.test(x), 'the verify logged');
    expect(f).not.toContain('Nothing sent yet');
    await d.press('enter');
    const entry = await d.waitForText('Audit entry #');
    expect(entry).toMatch(/Action\s+audit\.export/);
    // nothing was written, so the command is the request as curl, with no output file to name
    const flat = entry.replace(/\x1b\[[0-9;]*m|[│\s]/g, '');
    expect(flat).toMatch(/Commandcurl-H"Authorization:Bearer\$TOKEN"'?http\S*\/audit\/export\?format=jsonl/);
    expect(flat).not.toContain('-o');
  });

  it('an auditor sees an empty log: nothing sent', async () => {
    const d = suite.render({ screen: 'log', role: 'auditor' });
    await d.waitForText('Nothing sent yet');
  });
});
