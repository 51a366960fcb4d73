import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryOf } from '../../src/audit-chain/memory.js';
import { insertAuditBatch } from '../../src/server/governance/bulk.js';
import { auditSeeds as seed, seal, startForkedPair } from '../helpers/audit-fork.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import { tempDir } from '../helpers/fixtures.js';
import type { TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/**
 * The dashboard's kept checkpoint moves forward by a consistency proof (issue 40 §3), as `audit verify
 * --since` does: when the appliance signs a newer tree, the dashboard asks GET /audit/proofs/consistency
 * from the kept tree size to the newest and keeps the newest once the proof verifies, without reading
 * the entries between (more of them than any page holds). Then the tamper suite's fork: a copy of the
 * appliance's data directory that signed another history with the same key, larger than the kept tree,
 * whose page and newest checkpoint check out on their own: no proof joins it to the kept checkpoint,
 * and the audit screen and the overview say CHAIN BROKEN, naming both checkpoints as the CLI does.
 */
let truth: TestServer;
let forged: TestServer;
let fingerprint: string;
let d: DashboardHarness | undefined;
/** proofs the dashboards asked the appliances for: `URL from=…&to=…` */
const asked: string[] = [];
/** The dashboard on `srv`, its consistency proof requests recorded in `asked`. */
function render(srv: TestServer, o: Parameters<typeof renderDashboard>[0]): DashboardHarness {
  const h = renderDashboard({ server: srv, role: 'auditor', ...o });
  h.deps.client.observe((e) => {
    if (e.route === 'auditConsistencyProof') asked.push(`${srv.url} ${e.path.split('?')[1]}`);
  });
  return h;
}

beforeAll(async () => {
  ({ truth, forged } = await startForkedPair('aa-kept-proof', 20));
  fingerprint = (await truth.call('GET', '/audit/checkpoints?limit=1')).json.public_keys[0].fingerprint;
}, 60_000);
afterEach(async () => {
  await d?.unmount();
  d = undefined;
});
afterAll(async () => {
  await truth?.close();
  await forged?.close();
});

const kept = () => memoryOf([fingerprint]).kept as { seq: number; tree_size?: number } | null;

describe("the dashboard's kept checkpoint", () => {
  it('moves to a newer signed tree by a consistency proof, past more entries than a page shows', async () => {
    d = render(truth, { screen: 'audit', columns: 400 });
    await d.waitForText(/chain checks out .* · checkpoint #\d+ signed/);
    const first = kept();
    expect(first?.tree_size).toBe(first?.seq);
    // 300 entries written and signed: the audit page holds the newest few, never the kept one's
    insertAuditBatch(truth.server.db, seed(300, 'later'));
    const size = await seal(truth);
    await d.press('r');
    await until('the newer checkpoint kept', () => kept()?.tree_size === size);
    expect(asked).toContain(`${truth.url} from=${first!.tree_size}&to=${size}`);
    const f = await d.waitForText(new RegExp(`checkpoint #${size} signed`));
    expect(f).not.toContain('CHAIN BROKEN');
  });

  it('a fork: another history signed by the same key is CHAIN BROKEN, both checkpoints named', async () => {
    const before = kept()!;
    // the copy grows past the kept tree with entries of its own: each of its pages checks out
    insertAuditBatch(forged.server.db, seed(500, 'nobody'));
    const size = await seal(forged);
    // the evidence goes where the CLI keeps its own (its XDG state's forks folder)
    const evidenceFile = join(tempDir('aa-kept-fork'), 'fork.json');
    d = render(forged, {
      screen: 'audit',
      columns: 600,
      writeFork: async (evidence) => {
        writeFileSync(evidenceFile, evidence);
        return evidenceFile;
      },
    });
    const f = await d.waitForText('CHAIN BROKEN');
    expect(asked).toContain(`${forged.url} from=${before.tree_size}&to=${size}`);
    const finding = memoryOf([fingerprint]).broken?.finding;
    expect(finding).toMatch(
      new RegExp(
        `^FORK: the appliance signed two histories: the tree of size ${before.tree_size} is not proven ` +
          `a prefix of the tree of size ${size} \\(the consistency proof the appliance served does not verify\\); ` +
          `the checkpoint #${before.seq} kept by this dashboard \\(tree size ${before.tree_size}, [^)]+\\) and the ` +
          `newest, #${size} \\(tree size ${size}, [^)]+\\) are both written to ${evidenceFile}$`,
      ),
    );
    // both checkpoints as signed, each verifying on its own: proof to anyone that two histories exist
    const evidence = JSON.parse(readFileSync(evidenceFile, 'utf8'));
    expect(evidence).toMatchObject({
      format: 'appliance-admin/fork-evidence/v1',
      seen_before: { source: 'the checkpoint kept by the dashboard', checkpoint: { tree_size: before.tree_size } },
      seen_now: { checkpoint: { tree_size: size } },
      consistency_proof: { from: before.tree_size, to: size },
    });
    expect(evidence.seen_before.checkpoint.note).toMatch(
      new RegExp(`^appliance-admin/[0-9a-f]{16}\\n${before.tree_size}\\n`),
    );
    // the header says it from its start, cut at the terminal's edge
    expect(f.replace(/\s+/g, ' ')).toContain(`✕ CHAIN BROKEN: ${finding!.slice(0, 150)}`);
    // the kept checkpoint is not moved onto the forged history
    expect(kept()?.seq).toBe(before.seq);
    await d.unmount();
    d = render(forged, { columns: 600 });
    const board = await d.waitForText('Audit chain broken');
    expect(board).toMatch(/CRIT\s+Audit chain broken\s+FORK: the appliance signed two histories/);
  });
});
