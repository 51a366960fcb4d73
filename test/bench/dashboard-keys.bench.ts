import './lib/production-env.js';
import { rmSync } from 'node:fs';
import { ApiClient } from '../../src/client/api-client.js';
import { createDashboard, type DashboardDeps } from '../../src/dashboard/shell/deps.js';
import { patchEntry, resourceKey } from '../../src/dashboard/state/resources.js';
import { patchScreen, screenState } from '../../src/dashboard/state/ui.js';
import type { AuditEntry } from '../../src/contract/index.js';
import { screens } from '../../screens/index.js';
import { auditScreen } from '../../screens/audit.js';
import { issueToken, startServer } from './lib/cli-server.js';
import { copyAuditDb, ensureAuditDb } from './lib/audit-db.js';
import { renderApp, type InkHarness } from './lib/ink-harness.js';
import { pressFromThread, type SentKey } from './lib/key-sender.js';
import { loadAverage, median, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 4, point 2: keypress to rendered frame on the audit screen holding 100,000 entries.
 * Targets (issue 27 §3), on the 100,000 entries, which come after the first 200 keys: p50 <= 4 ms
 * and p99 <= 16.7 ms for moves, pages and typing a filter. The
 * real App (shell, audit screen, Table) is rendered by Ink with the CLI's frame options into a
 * 120x40 in-memory terminal; keys go through the CLI's KeyStdin; Ink's onRender marks the frame.
 * The server is the built CLI's `serve` in its own process, on the cached 100,000-entry trail.
 * The audit screen pages by cursor, at most 500 entries a page, so it never holds 100,000 rows
 * from the server by itself: the benchmark reads all 100,000 from a real server (200 pages of
 * 500 through the same client) and puts them into the screen's resource, polling stopped; the
 * same screen showing a server page of 500 (polling on) is measured too. Baseline: the same keys
 * with the first 100 of those entries. Keys are 45–75 ms apart, so the frame limit (maxFps) is
 * open except when another frame (the header's clock, once a second) was just drawn, as it is for
 * a person typing. Order: the page of 500 first, from a cold start (V8 has not optimised the
 * render path yet: its keys are slower than the same keys a few minutes later), then the
 * baseline, then the 100,000 entries, warm after those 2,400 keys.
 * On this 2-vCPU virtual machine most keys over 4 ms are keys during which the dashboard's thread
 * lost its core: preempted (another thread or a kernel worker took it, the thread waited in the
 * run queue) or stolen by the hypervisor (lib/thread-sched.ts). The p99 of the keys during which
 * it kept its core is reported beside each target: the dashboard's own share of the time; its note
 * counts the keys over the target during which the process's other threads (V8's compiler and
 * garbage collector workers) ran 1 ms or more (docs/performance.md).
 * Last, for information, the same moves and pages are sent from another thread (lib/key-sender.ts),
 * so that a key can arrive while the drawing thread is busy (a garbage collection, the clock's
 * frame), as a person's can; their figures say how many keys waited for it.
 */
export const name = 'dashboard-keys';

const COLUMNS = 120;
const ROWS = 40;
const KEY = { down: '\x1b[B', up: '\x1b[A', pgdn: '\x1b[6~', pgup: '\x1b[5~', esc: '\x1b', backspace: '\x7f' };
const gap = () => new Promise((r) => setTimeout(r, 45 + Math.random() * 30));

/** Times of one kind of key: all of them, and those during which the thread kept its core. */
export interface Kind {
  all: number[];
  kept: number[];
  preempted: number;
  stolen: number;
  unknown: number;
  /** per key of `all`: the process's other threads ran 1 ms or more during it */
  othersBusy: boolean[];
}
export interface Samples {
  move: Kind;
  page: Kind;
  filter: Kind;
  clear: Kind;
  missed: number;
}

const kind = (): Kind => ({ all: [], kept: [], preempted: 0, stolen: 0, unknown: 0, othersBusy: [] });

export async function measure(h: InkHarness, n: number, words: string[]): Promise<Samples> {
  const s: Samples = { move: kind(), page: kind(), filter: kind(), clear: kind(), missed: 0 };
  // the screen was just drawn (the harness saw it within 20 ms): the first key comes a gap later,
  // as every other one does, not inside the frame limit's window after that frame
  await gap();
  const take = async (into: Kind, key: string) => {
    const t = await h.press(key);
    if (t === null) s.missed++;
    else {
      into.all.push(t.ms);
      if (t.disturbed === null) into.kept.push(t.ms);
      else into[t.disturbed ?? 'unknown']++;
      into.othersBusy.push(t.othersBusy === true);
    }
    await gap();
  };
  // cursor: j x n/2 down from the top, k back (arrow keys alternate with j/k)
  for (let i = 0; i < n / 2; i++) await take(s.move, i % 2 ? 'j' : KEY.down);
  for (let i = 0; i < n / 2; i++) await take(s.move, i % 2 ? 'k' : KEY.up);
  for (let i = 0; i < n / 2; i++) await take(s.page, KEY.pgdn);
  for (let i = 0; i < n / 2; i++) await take(s.page, KEY.pgup);
  // filter: '/', a word one character at a time, Enter keeps it; Esc clears it
  let typed = 0;
  for (let w = 0; typed < n; w++) {
    const word = words[w % words.length];
    await take(s.filter, '/');
    for (const ch of word) await take(s.filter, ch);
    await take(s.filter, KEY.backspace);
    await take(s.filter, '\r');
    await take(s.clear, KEY.esc);
    typed += word.length + 3;
  }
  return s;
}

/**
 * Issue 27 §3's targets for moves, pages and typing a filter on 100,000 entries, in ms: the
 * dashboard's key-latency targets, which server-gateway-scale holds the keys screen to as well.
 */
export const KEY_TARGET = { p50: 4, p99: 16.7 };

/** The keys during which the thread kept its core; null where /proc cannot tell. */
function kept(k: Kind, label: string, max: number): Figure | null {
  if (k.unknown > 0 || k.kept.length === 0) return null;
  return {
    label: `${label}, keys the thread kept its core: p99`,
    value: percentile(k.kept, 99),
    unit: 'ms',
    note: `${stat(k.kept)}; left out ${k.preempted} preempted, ${k.stolen} stolen by the hypervisor, of ${k.all.length}; the ${max} ms target is on all keys; ${overTarget(k, max)}`,
  };
}

/** How many keys missed the target, and during how many of them the process's other threads ran. */
function overTarget(k: Kind, max: number): string {
  const over = k.all.flatMap((ms, i) => (ms > max ? [i] : []));
  return `over ${max} ms: ${over.length} keys, ${over.filter((i) => k.othersBusy[i]).length} of them while the dashboard's other threads (V8's workers) ran >= 1 ms`;
}

/** Keys from another thread: to their frame, and how many waited for the drawing thread. */
function threadFigure(label: string, keys: SentKey[]): Figure {
  const ms = keys.flatMap((k) => (k.ms === null ? [] : [k.ms]));
  const waits = keys.map((k) => k.waitMs);
  const waited = waits.filter((w) => w > 1).length;
  return {
    label: `${label}: p99`,
    value: percentile(ms, 99),
    unit: 'ms',
    note: `${stat(ms)}; waited over 1 ms for the drawing thread: ${waited} of ${keys.length} keys (longest ${Math.max(...waits).toFixed(1)} ms); the message between the threads alone: p50 ${median(waits).toFixed(2)} ms${ms.length < keys.length ? `; ${keys.length - ms.length} keys without a frame within 1 s` : ''}`,
  };
}

export const stat = (xs: number[]) =>
  `p50 ${median(xs).toFixed(2)}, p99 ${percentile(xs, 99).toFixed(2)}, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} keys)`;

export async function run(ctx: BenchContext): Promise<Figure[]> {
  if (process.env.CI && process.env.CI !== '0' && process.env.CI !== 'false')
    throw new Error('unset CI: Ink draws no frames when it believes it runs in CI');
  const n = ctx.quick ? 60 : 400;
  const load0 = loadAverage();
  const cached = ensureAuditDb(ctx.outDir, 100_000, ctx.log);
  const dataDir = copyAuditDb(cached, ctx.outDir, `keys-${process.pid}`);
  // the built server in its own process, as on the appliance: its work answering polls must not
  // land on the dashboard's thread
  const srv = await startServer(dataDir);
  const token = issueToken(dataDir, 'auditor', 'bench-keys');
  const client = new ApiClient({ url: srv.url, token });
  const deps: DashboardDeps = createDashboard({
    client,
    token,
    screens,
    refreshMs: 2000,
    initialScreen: 'audit',
    clipboard: () => undefined,
  });
  // the largest page the screen offers
  patchScreen(deps.ui, 'audit', { extra: { pageSize: 500 } });
  const h = renderApp(deps, COLUMNS, ROWS);
  const figures: Figure[] = [];
  try {
    await h.waitForText('500 per page');
    await h.waitForText('row 1 of 500');
    const words = ['gateway.key', 'denied', 'svc-ingest', 'alice', 'model.act'];
    ctx.log(`a server page of 500, polling every 2 s: ${n} keys of each kind`);
    const page500 = await measure(h, n, words);

    // 100,000 entries, read through the same client, into the screen's resource
    deps.poller.stop();
    const all: AuditEntry[] = [];
    for (let after: string | undefined; ;) {
      const res = await client.call('listAudit', { query: { limit: 500, ...(after ? { after } : {}) } });
      all.push(...res.data.data);
      if (!res.data.has_more || !res.data.next_cursor) break;
      after = res.data.next_cursor;
    }
    ctx.log(`${all.length} entries read from the server`);
    const key = resourceKey(auditScreen.resources(screenState(deps.ui.getState(), 'audit'))[0]);
    const hold = async (rows: AuditEntry[]) => {
      patchEntry(deps.resources, key, {
        data: { data: rows, has_more: false, next_cursor: null },
        status: 'ok',
        error: null,
        fetchedAt: Date.now(),
      });
      patchScreen(deps.ui, 'audit', { cursor: 0, selectedKey: null, scroll: 0, filter: '' });
      await h.waitForText(`row 1 of ${rows.length}`);
    };
    await hold(all.slice(0, 100));
    ctx.log(`baseline: 100 entries, ${n} keys of each kind`);
    const small = await measure(h, n, words);
    await hold(all);
    ctx.log(`${all.length} entries, ${n} keys of each kind`);
    const big = await measure(h, n, words);
    ctx.log(`${all.length} entries, ${n} moves and ${n} pages sent from another thread`);
    const sent = await pressFromThread(h, [
      ...Array.from({ length: n }, (_, i) => (i < n / 2 ? (i % 2 ? 'j' : KEY.down) : i % 2 ? 'k' : KEY.up)),
      ...Array.from({ length: n }, (_, i) => (i < n / 2 ? KEY.pgdn : KEY.pgup)),
    ]);
    const tallest = h.stdout.tallest;

    const count = all.length.toLocaleString('en-US');
    /**
     * a key's p50 and p99 against the targets when `base` (the 100-entry baseline) is given, for
     * information otherwise; then the share that was the dashboard's own
     */
    const p99 = (label: string, k: Kind, base?: Kind): Figure[] => {
      const main: Figure = {
        label: `${label}: p99`,
        value: percentile(k.all, 99),
        unit: 'ms',
        ...(base
          ? {
              target: { max: KEY_TARGET.p99 },
              baseline: { label: 'same keys, 100 entries, p99', value: percentile(base.all, 99) },
            }
          : {}),
        note: base ? `${stat(k.all)}; baseline ${stat(base.all)}` : stat(k.all),
      };
      const p50: Figure = {
        label: `${label}: p50`,
        value: median(k.all),
        unit: 'ms',
        ...(base ? { target: { max: KEY_TARGET.p50 } } : {}),
      };
      const own = kept(k, label, KEY_TARGET.p99);
      return own ? [p50, main, own] : [p50, main];
    };
    figures.push(
      ...p99(`j/k and arrows, ${count} entries, key to frame`, big.move, small.move),
      ...p99(`PgDn/PgUp, ${count} entries, key to frame`, big.page, small.page),
      ...p99(`typing a filter (/, characters, Backspace, Enter), ${count} entries`, big.filter, small.filter),
      {
        label: `Esc clearing the filter, ${count} entries: p99`,
        value: percentile(big.clear.all, 99),
        unit: 'ms',
        note: stat(big.clear.all),
      },
      threadFigure(`j/k and arrows sent from another thread, ${count} entries`, sent.slice(0, n)),
      threadFigure(`PgDn/PgUp sent from another thread, ${count} entries`, sent.slice(n)),
      // the first keys after start, the first 200 among them: for information (the targets count
      // the keys after the first 200)
      ...p99('j/k on a server page of 500 (polling on)', page500.move),
      ...p99('PgDn/PgUp on a server page of 500', page500.page),
      ...p99('typing a filter on a server page of 500', page500.filter),
      {
        label: `tallest frame written (terminal ${COLUMNS}x${ROWS})`,
        value: tallest,
        unit: 'lines',
        target: { max: ROWS - 1 },
        note: 'one line short of the terminal: a frame as tall as the terminal makes Ink clear the screen on every update',
      },
      {
        label: 'keys after which no frame came within 1 s',
        value: big.missed + small.missed + page500.missed + sent.filter((k) => k.ms === null).length,
        unit: 'keys',
        note: `load ${load0} -> ${loadAverage()}`,
      },
    );
    return figures;
  } finally {
    h.unmount();
    await deps.close();
    await srv.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
