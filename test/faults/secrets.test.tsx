import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { issueToken, start, type ChildServer } from '../helpers/child-server.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';

/**
 * Issue 5, point 6 (dashboard half): after the create-key dialog closes, the key's secret is
 * nowhere the dashboard can reach: not in a store, not in the client's caches, not on screen,
 * not in the process title, not in any string this process still holds. The server runs as its
 * own process, so a heap snapshot of this one holds the dashboard's memory only.
 */
let server: ChildServer;
let token: string;
let d: DashboardHarness;

beforeAll(async () => {
  const root = tempDir('aa-secrets');
  const dataDir = join(root, 'data');
  token = await issueToken(dataDir, 'it_admin', 'secret-admin');
  server = await start(dataDir, { config: fixtureConfig(root) });
}, 60_000);
afterAll(async () => {
  await d?.unmount();
  await server?.stop();
});

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const SECRET_SHAPE = /agk_[A-Za-z0-9_-]{43}/g;

/** Creates a key through the dialogs; returns only the secret's hash (the test keeps no copy). */
async function createKeyAndClose(name: string): Promise<string> {
  await d.press('n');
  await d.waitForText('Create a gateway key');
  await d.type(name);
  await d.press('enter');
  const shown = await d.waitForText('will not be shown again');
  const hash = sha(shown.match(SECRET_SHAPE)![0]);
  /agk_/.exec('flush the last-match slot'); // a regexp's last match would otherwise keep the frame
  await d.press('enter'); // close the secret dialog
  await d.waitForText('Key created');
  d.forgetFrames(); // the harness's record of frames; a terminal keeps none
  await d.press('enter'); // close the result
  await d.waitFor((f) => f.includes(name) && !f.includes('Key created'), 'the list again');
  return hash;
}

/** Every secret-shaped string in `text` whose hash is `hash`. */
const holds = (text: string, hash: string) => [...text.matchAll(SECRET_SHAPE)].some((m) => sha(m[0]) === hash);

describe("a created key's secret after its dialog closed", () => {
  it('is in no store, not on screen, not in the process title, and in no string left in memory', async () => {
    d = renderDashboard({ url: server.url, token, screen: 'keys', refreshMs: 300 });
    await d.waitForText('● connected');
    // two polls later (the list refreshed through the ETag cache)
    let polls = 0;
    const off = d.deps.client.observe((e) => e.route === 'listKeys' && polls++);
    const hash = await createKeyAndClose('leak-check');
    polls = 0;
    await d.waitFor(() => polls >= 2, 'two polls of the keys');
    off();

    const stores = JSON.stringify({
      resources: d.deps.resources.getState(),
      ui: d.deps.ui.getState(),
      dialogs: d.deps.dialogs.getState(),
      session: d.deps.session.getState(),
    });
    expect(stores).toContain('leak-check');
    expect(holds(stores, hash), 'a zustand store').toBe(false);
    expect(holds(d.allFrames(), hash), 'a frame drawn after the dialog closed').toBe(false);
    expect(holds(`${process.title} ${process.argv.join(' ')}`, hash), 'the process title').toBe(false);

    // Everything else: the client's ETag cache, React state still mounted, closures. A heap
    // snapshot (taken after a full GC) lists every string still reachable.
    const dir = tempDir('aa-heap');
    const file = writeHeapSnapshot(join(dir, 'dashboard.heapsnapshot'));
    try {
      const heap = readFileSync(file, 'utf8');
      expect(heap.length).toBeGreaterThan(1_000_000);
      expect(heap).toContain('leak-check'); // the snapshot does hold the dashboard's strings
      expect(holds(heap, hash), 'a string still reachable in the dashboard process').toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(d.crashed()).toBeNull();
  }, 60_000);
});
