import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { evidenceVerifyCommand } from '../../src/cli/evidence-verify.js';
import { tempDir } from '../helpers/fixtures.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { request } from 'undici';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { startHostile } from '../helpers/hostile-server.js';
import { tamper } from '../helpers/tamper.js';

const NOW = Date.now();
const SEEDED = 120;
const n = (v: number) => v.toLocaleString('en-US');

function seed(i: number): AuditSeed {
  return {
    at_ms: NOW - 10 * 60_000 - i * 60_000,
    actor: { subject: 'alice@corp.example', role: 'it_admin' },
    action: 'gateway.key.create',
    target: { type: 'gateway_key', id: `key_chain${i}` },
    outcome: 'success',
    status: 200,
    request_id: `req_chain${i}`,
    source_ip: '10.0.0.1',
    details: { n: i },
  };
}

const suite = setupScreenSuite({
  setup: (s) => {
    insertAuditBatch(
      s.server.db,
      // oldest first, as the appliance writes them: seq follows time
      Array.from({ length: SEEDED }, (_, i) => seed(SEEDED - 1 - i)),
    );
  },
});
const maxSeq = () => (suite.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number) ?? 0;
const newestCheckpoint = () => suite.db.prepare('SELECT max(seq) FROM audit_checkpoints').pluck().get() as number;

// The tampering test comes last in the file: it breaks the chain for good.
describe('audit screen: the chain', () => {
  it('says the page read checks out and names the newest checkpoint, verified with the served key', async () => {
    // an export signs a checkpoint of the head (the seeds are fewer than the 1,000 that would)
    expect((await suite.server.call('GET', '/audit/export?format=jsonl', { role: 'auditor' })).status).toBe(200);
    const d = suite.render({ screen: 'audit', columns: 260 });
    const top = maxSeq();
    const f = await d.waitForText(/chain checks out.*checkpoint #/);
    expect(f).toContain(`chain checks out (page #${n(top - 49)}–#${n(top)})`);
    // no audit key pinned: the header says the checkpoint's key is only the appliance's own
    expect(f).toMatch(
      new RegExp(
        `checkpoint #${n(newestCheckpoint())} signed \\d+ (s|min) ago by the appliance's key \\(not pinned\\)`,
      ),
    );
    expect(f).not.toContain('CHAIN BROKEN');
    await d.unmount();

    // the overview always says the chain's state, short: intact, its checkpoint, and that no key is pinned
    const o = suite.render({ columns: 200 });
    const board = await o.waitForText(/Audit chain\s+newest entries check out \(to #.*\) · checkpoint #/);
    expect(board).toMatch(
      new RegExp(
        `OK\\s+Audit chain\\s+newest entries check out \\(to #${n(maxSeq())}\\) · checkpoint #${n(newestCheckpoint())} by a key not pinned`,
      ),
    );
    expect(board).not.toContain('CRIT');
  });

  it('V (an auditor may) verifies the whole trail with progress and the header then says so', async () => {
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 260 });
    await d.waitForText(/chain checks out/);
    await d.press('V');
    // the dialog's lines wrap: read its words in one line
    const f = (await d.waitForText('Audit trail verified', 10_000)).replace(/[│\s]+/g, ' ');
    // the export itself is audited; nothing but the last export was written since its checkpoint, so the
    // trail verified ends at that checkpoint, without V's own entry (docs/audit-chain.md, "Checkpoints")
    const top = newestCheckpoint();
    expect(maxSeq()).toBe(top + 1);
    // the key is the one the appliance serves: verified, but not the pinned answer (warn), with how to pin
    expect(f).toContain('▲ NOTE Audit trail verified with an unpinned key');
    expect(f).toMatch(
      new RegExp(
        `verified with an unpinned key: the whole trail, entries #1–#${n(top)} \\(${n(top)}\\), complete and unaltered; signed by key SHA256:`,
      ),
    );
    expect(f).toContain('pin the key: appliance-admin audit key --url … -o appliance.pem');
    await d.press('esc');
    await d.waitForText(
      new RegExp(
        `chain verified to #${n(top)} by a key not pinned \\(\\d+ s ago\\) · checkpoint #${n(top)} signed \\d+ s ago by the appliance's key`,
      ),
    );
    // at 80 columns the line is cut: what is left of it still says the key was not pinned, never a
    // bare "chain verified" (the checkpoint's part, which also says it, is the part cut)
    await d.resize(80, 24);
    const narrow = await d.waitFor((x) => /^chain verified to #.*…$/m.test(x), 'the chain line cut at 80 columns');
    expect(narrow).toMatch(new RegExp(`^chain verified to #${n(top)} by a key not pinned \\(\\d+ s ago\\)`, 'm'));
  });

  it("E's explanation at 80 columns is one paragraph, each line filled before the next starts", async () => {
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 80, rows: 24 });
    await d.waitForText(/chain checks out/);
    await d.press('E');
    const f = await d.waitForText('Make an evidence pack');
    const box = f.split('\n').map((l) => /│ (.*?)\s*│$/.exec(l)?.[1] ?? null);
    const first = box.findIndex((l) => l?.startsWith('The audit trail'));
    const last = box.findIndex((l) => l?.endsWith('Making it is audited.'));
    expect(first).toBeGreaterThan(0);
    const width = Math.max(...box.map((l) => l?.length ?? 0));
    for (let i = first; i < last; i++) {
      const nextWord = box[i + 1]!.split(' ')[0];
      expect(box[i]!.length + 1 + nextWord.length, `line ${i}: "${box[i]}"`).toBeGreaterThan(width);
    }
    await d.press('esc');
  });

  it('E (an auditor may) makes an evidence pack that evidence verify accepts', async () => {
    // an appliance whose key list carries text the dashboard shows made safe (a tab, an escape): the
    // pack holds it as served, as evidence
    const peer = await startHostile({ upstream: suite.server.url });
    peer.set('/gateway/keys', async (req, res) => {
      const up = await request(`${suite.server.url}${req.url}`, {
        headers: { authorization: `${req.headers.authorization}` },
      });
      const page = (await up.body.json()) as { data: Record<string, unknown>[] };
      page.data[0] = { ...page.data[0], note: 'tab\there \u001b[2J' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(page));
    });
    const dir = join(tempDir('aa-evidence-ui'), 'pack');
    const d = suite.render({
      screen: 'audit',
      role: 'auditor',
      columns: 200,
      url: peer.url,
      token: suite.server.tokens.auditor,
    });
    await d.waitForText(/chain checks out/);
    await d.press('E');
    await d.waitForText('Make an evidence pack');
    await d.press('tab', ...Array<string>(80).fill('backspace'));
    await d.type(dir);
    await d.press('enter');
    const f = (await d.waitForText('Evidence pack written', 15_000)).replace(/[│\s]+/g, ' ');
    const files = readdirSync(dir);
    expect(files).toEqual(
      expect.arrayContaining(['manifest.json', 'seal.json', 'audit.jsonl', 'public-keys.json', 'README.txt']),
    );
    expect(f).toContain(`folder ${dir}`);
    expect(f).toContain(`files ${files.length}`);
    expect(f).toContain(`check it with appliance-admin evidence verify ${dir} --key KEY.pem`);
    expect(f).toMatch(
      /in two exports: audit\.jsonl \(checkpoint #[\d,]+\) and audit\.csv \(checkpoint #[\d,]+\), sealed at #[\d,]+/,
    );
    // the same pack as the CLI's: sealed by the auditor who made it, and it verifies with the appliance's key pinned
    const seal = JSON.parse(readFileSync(join(dir, 'seal.json'), 'utf8'));
    expect(seal.entry).toMatchObject({ action: 'audit.seal', actor: { role: 'auditor' } });
    const key = join(dir, '..', 'appliance.pem');
    const served = await suite.server.call('GET', '/audit/checkpoints', { role: 'auditor' });
    writeFileSync(key, served.json.public_keys[0].public_key_pem);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    let code: number;
    let printed: string;
    try {
      code = await evidenceVerifyCommand([dir, '--key', key]);
    } finally {
      printed = out.mock.calls.join('');
      out.mockRestore();
    }
    expect(printed).toContain('the seal verifies, every file matches its manifest and the audit chain verifies');
    expect(code).toBe(0);
    // evidence as served, not as the screen shows it
    const keys = readFileSync(join(dir, 'keys.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { note?: string });
    expect(keys[0].note).toBe('tab\there \u001b[2J');
    await peer.close();
  });

  it('E refuses a pack that would hold the token it was made with, though the token never leaves the client', async () => {
    // the auditor's own token typed into a key's name: refused, and audited with the name as sent
    const token = suite.server.tokens.auditor;
    expect((await suite.server.call('POST', '/gateway/keys', { role: 'auditor', body: { name: token } })).status).toBe(
      403,
    );
    const dir = join(tempDir('aa-evidence-ui'), 'pack-with-token');
    const d = suite.render({ screen: 'audit', role: 'auditor', columns: 200 });
    await d.waitForText(/chain checks out/);
    await d.press('E');
    await d.waitForText('Make an evidence pack');
    await d.press('tab', ...Array<string>(80).fill('backspace'));
    await d.type(dir);
    await d.press('enter');
    const f = (await d.waitForText('No pack made', 15_000)).replace(/[│\s]+/g, ' ');
    expect(f).toMatch(/line [\d,]+ held the bearer token used to make it: the pack was removed/);
    expect(existsSync(dir)).toBe(false);
    await d.unmount();
  });

  it('one field of one entry changed in SQLite: the audit screen and the overview say CHAIN BROKEN at #N', async () => {
    const target = maxSeq() - 3;
    tamper(
      suite.db,
      `UPDATE audit SET outcome = CASE outcome WHEN 'denied' THEN 'success' ELSE 'denied' END WHERE seq = ${target}`,
    );
    const d = suite.render({ screen: 'audit', columns: 200 });
    const f = await d.waitForText('CHAIN BROKEN');
    expect(f).toContain(`CHAIN BROKEN at #${n(target)}: its hash does not match its contents`);
    await d.unmount();

    const o = suite.render({ columns: 200 });
    const board = await o.waitForText('Audit chain broken');
    expect(board).toMatch(new RegExp(`CRIT\\s+Audit chain broken at #${n(target)}`));
    await o.press('enter');
    await o.waitForText('CHAIN BROKEN');
  });
});
