import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDist, REPO } from './lib/cli-server.js';
import { bytesByPackage, dashboardLoadGraph, forbiddenIn } from './lib/bundle-graph.js';
import { CONNECTOR_TEXT, launchInPty, OVERVIEW_TEXT, startFixtureServer, timeExit } from './lib/dashboard-pty.js';
import { buildInkFloor } from './lib/ink-floor-build.js';
import { loadAverage, median, percentile } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 4, point 1: from launching the built CLI (`node bin/appliance-admin.cjs --url …
 * --token-file … --screen connectors`, in a real pseudo-terminal through util-linux `script`) to the
 * first frame that shows connector data from a running local server (the built CLI server in its
 * own process, the test fixtures' connectors); runs interleaved, medians. Targets (issue 27 §3):
 * a median of at most 150 ms, and at most 1.8x React + Ink alone loaded the same way (below);
 * `node -e 0`, in the same rounds, is the baseline for information. Issue 25: the same launch without --screen opens the overview (eleven
 * resources, each polled on its own): its first frame with data, against the connectors', in the
 * same rounds (target: within 10%).
 * The launch is the moment the shell inside the pseudo-terminal execs node (lib/dashboard-pty.ts
 * marks it): script's own start, its pseudo-terminal and stty come before it, are the harness's
 * and not the CLI's (a person in an SSH session has a terminal already), and are reported apart.
 * Breakdown runs preload lib/start-probe.mjs (not in the timed runs) to split the time into node
 * boot, module loading, requests and rendering. The dashboard's load graph is read from dist/.
 * The floor of the stack is measured alongside: React and Ink alone, bundled and loaded as the
 * CLI loads the dashboard (one CommonJS file through V8's code cache, made by the first launch),
 * drawing one line (lib/ink-floor.tsx), in the same pseudo-terminal.
 * Every timed process runs without NODE_EXTRA_CA_CERTS. This VM's environment sets it to the
 * system's bundle of about 140 root certificates, and Node 20 then parses them all before it runs
 * any JavaScript (about 80 ms here; Node 22 and later wait until a certificate is needed). That
 * slows `node -e 0` as much as the dashboard and so makes the ratio look better than it is on a
 * host without it. When the variable is set, the same launches with it are reported apart, for
 * information (docs/performance.md).
 */
export const name = 'dashboard-start';

const PLAIN: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: undefined };

interface ProbeMarks {
  probe: number;
  connected?: number;
  firstWrite?: number;
  firstFrame?: number;
  dataFrame: number;
  requests: { path: string; created: number; sent?: number; headers?: number; done?: number; status?: number }[];
  node: { bootstrapComplete: number; loopStart: number };
}

const ms = (v: number) => `${v.toFixed(1)} ms`;

export async function run(ctx: BenchContext): Promise<Figure[]> {
  ensureDist();
  const rounds = ctx.quick ? 5 : 15;
  const probeRuns = ctx.quick ? 3 : 7;
  const load0 = loadAverage();
  const graph = dashboardLoadGraph(join(REPO, 'dist'));
  const forbidden = forbiddenIn(graph);
  const top = bytesByPackage(join(REPO, 'dist'), graph)
    .slice(0, 6)
    .map(([p, b]) => `${p} ${Math.round(b / 1024)}`)
    .join(', ');

  const floorJs = await buildInkFloor(ctx.outDir);
  const srv = await startFixtureServer(ctx.outDir, 'start');
  const args = ['--url', srv.url, '--token-file', srv.tokenFile, '--screen', 'connectors'];
  // the first screen since issue 25, as `npm start` opens it
  const overviewArgs = ['--url', srv.url, '--token-file', srv.tokenFile];
  // the dashboard's code cache (src/cli/code-cache.ts) starts empty: the first launch makes it
  const cacheHome = join(ctx.outDir, `start-cache-${process.pid}`);
  rmSync(cacheHome, { recursive: true, force: true });
  /** ms from node's launch to the frame, and from script's */
  const dashboardOnce = async (
    nodeArgs: string[] = [],
    env: NodeJS.ProcessEnv = {},
    on: { args: string[]; text: string } = { args, text: CONNECTOR_TEXT },
  ) => {
    const p = launchInPty(on.args, { nodeArgs, env: { XDG_CACHE_HOME: cacheHome, ...PLAIN, ...env } });
    try {
      const frame = await p.waitFor(on.text);
      return { launched: frame - p.execAt(), script: frame, harness: p.execAt() };
    } finally {
      await p.quit();
    }
  };
  const ptyNodeOnce = async () => {
    const p = launchInPty([], { command: [process.execPath, '-e', 'process.stdout.write("ready")'], env: PLAIN });
    const t = await p.waitFor('ready');
    await p.exited;
    return t - p.execAt();
  };

  const floorOnce = async () => {
    const p = launchInPty([], { command: [process.execPath, floorJs], env: { XDG_CACHE_HOME: cacheHome, ...PLAIN } });
    try {
      return (await p.waitFor(CONNECTOR_TEXT)) - p.execAt();
    } finally {
      await p.quit();
    }
  };

  const node0: number[] = [];
  const dash: number[] = [];
  const overview: number[] = [];
  const overviewOn = { args: overviewArgs, text: OVERVIEW_TEXT };
  const dashScript: number[] = [];
  const harness: number[] = [];
  const pty0: number[] = [];
  const floor: number[] = [];
  const uncached: number[] = [];
  const inheritedCa = process.env.NODE_EXTRA_CA_CERTS;
  const withCa = { NODE_EXTRA_CA_CERTS: inheritedCa };
  const node0Ca: number[] = [];
  const dashCa: number[] = [];
  const probes: ProbeMarks[] = [];
  const overviewProbes: ProbeMarks[] = [];
  try {
    // warm the page cache and the server's routes
    for (let i = 0; i < 2; i++) {
      await timeExit([process.execPath, '-e', '0'], PLAIN);
      await dashboardOnce();
      await dashboardOnce([], {}, overviewOn);
      await floorOnce();
    }
    ctx.log(
      `${rounds} interleaved rounds: node -e 0, the dashboard on connectors and on the overview, node -e 0 in a pty, React + Ink alone, the dashboard without its code cache${inheritedCa ? ', node -e 0 and the dashboard with NODE_EXTRA_CA_CERTS' : ''}`,
    );
    for (let i = 0; i < rounds; i++) {
      node0.push(await timeExit([process.execPath, '-e', '0'], PLAIN));
      // the two first screens back to back, in turn first, so that neither always runs warmer
      const first = i % 2 === 0 ? await dashboardOnce([], {}, overviewOn) : null;
      const d = await dashboardOnce();
      overview.push((first ?? (await dashboardOnce([], {}, overviewOn))).launched);
      dash.push(d.launched);
      dashScript.push(d.script);
      harness.push(d.harness);
      pty0.push(await ptyNodeOnce());
      floor.push(await floorOnce());
      uncached.push((await dashboardOnce([], { NODE_DISABLE_COMPILE_CACHE: '1' })).launched);
      if (inheritedCa) {
        node0Ca.push(await timeExit([process.execPath, '-e', '0'], withCa));
        dashCa.push((await dashboardOnce([], withCa)).launched);
      }
    }
    ctx.log(`${probeRuns} breakdown runs with lib/start-probe.mjs`);
    const probeFile = join(ctx.outDir, `start-probe-${process.pid}.json`);
    for (let i = 0; i < probeRuns; i++) {
      rmSync(probeFile, { force: true });
      await dashboardOnce(['--import', join(REPO, 'test/bench/lib/start-probe.mjs')], {
        BENCH_PROBE_OUT: probeFile,
        BENCH_PROBE_TEXT: CONNECTOR_TEXT,
      });
      probes.push(JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeMarks);
      // the overview's, to see where it spends what the connectors screen does not
      rmSync(probeFile, { force: true });
      await dashboardOnce(
        ['--import', join(REPO, 'test/bench/lib/start-probe.mjs')],
        { BENCH_PROBE_OUT: probeFile, BENCH_PROBE_TEXT: OVERVIEW_TEXT },
        overviewOn,
      );
      overviewProbes.push(JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeMarks);
    }
    rmSync(probeFile, { force: true });
  } finally {
    await srv.close();
    rmSync(cacheHome, { recursive: true, force: true });
  }

  const baseline = { label: `node -e 0, median of ${rounds}`, value: median(node0) };
  const med = (f: (m: ProbeMarks) => number | undefined) =>
    median(probes.map(f).filter((v): v is number => v !== undefined));
  const firstReq = (m: ProbeMarks) => m.requests[0]?.created;
  const req = (m: ProbeMarks, re: RegExp) => m.requests.find((r) => re.test(r.path));
  const boot = med((m) => m.node.bootstrapComplete);
  const toReq = med(firstReq);
  const toFirstFrame = med((m) => m.firstFrame);
  const toData = med((m) => m.dataFrame);
  const sessionRt = med((m) => {
    const r = req(m, /\/session$/);
    return r?.headers !== undefined ? r.headers - r.created : undefined;
  });
  const connRt = med((m) => {
    const r = req(m, /\/connectors/);
    return r?.done !== undefined ? r.done - r.created : undefined;
  });
  const afterResponse = med((m) => {
    const r = req(m, /\/connectors/);
    return r?.done !== undefined ? m.dataFrame - r.done : undefined;
  });
  const overviewMed = (f: (m: ProbeMarks) => number | undefined) =>
    median(overviewProbes.map(f).filter((v): v is number => v !== undefined));
  const deploymentRt = overviewMed((m) => {
    const r = req(m, /\/deployment$/);
    return r?.done !== undefined ? r.done - r.created : undefined;
  });
  const overviewAfterResponse = overviewMed((m) => {
    const r = req(m, /\/deployment$/);
    return r?.done !== undefined ? m.dataFrame - r.done : undefined;
  });
  const overviewToReq = overviewMed(firstReq);
  const load1 = loadAverage();

  return [
    {
      label: `launch to first frame with connector data, median of ${rounds}`,
      value: median(dash),
      unit: 'ms',
      baseline,
      // issue 27 §3: a median of at most 150 ms (and 1.8x the floor, below); the ratio to
      // `node -e 0` is for information
      target: { max: 150 },
      note: `node bin/appliance-admin.cjs --url … --token-file … --screen connectors exec'd in script(1)'s pseudo-terminal, 120x32, its code cache made by the first launch, no NODE_EXTRA_CA_CERTS; p10 ${ms(percentile(dash, 10))}, p90 ${ms(percentile(dash, 90))}; node -e 0 p10 ${ms(percentile(node0, 10))}; load ${load0} -> ${load1}`,
    },
    {
      label: `launch to the overview's first frame with data (the first screen: eleven resources), median of ${rounds}`,
      value: median(overview),
      unit: 'ms',
      baseline: {
        label: 'launch to the connectors screen with data (--screen connectors), the same rounds',
        value: median(dash),
      },
      target: { maxRatio: 1.1 },
      note: `the same launch without --screen, to the frame whose header says "${OVERVIEW_TEXT}…" (the deployment, its first resource, has answered; the others fill in as they arrive); p10 ${ms(percentile(overview, 10))}, p90 ${ms(percentile(overview, 90))}`,
    },
    ...(inheritedCa
      ? [
          {
            label: `the same with this environment's NODE_EXTRA_CA_CERTS, median of ${rounds}`,
            value: median(dashCa),
            unit: 'ms',
            baseline: { label: `node -e 0 with it, median of ${rounds}`, value: median(node0Ca) },
            note: `${inheritedCa}, Node ${process.versions.node}: node -e 0 ${ms(median(node0Ca))} against ${ms(median(node0))} without it, the dashboard ${ms(median(dashCa))} against ${ms(median(dash))}; for information, the target is checked on the plain figure above`,
          } satisfies Figure,
        ]
      : []),
    {
      label: `the same from starting script(1), its pseudo-terminal's set-up included, median of ${rounds}`,
      value: median(dashScript),
      unit: 'ms',
      baseline,
      note: `script, its pseudo-terminal and stty before node is launched: median ${ms(median(harness))} (p10 ${ms(percentile(harness, 10))}, p90 ${ms(percentile(harness, 90))}); the harness's, not the CLI's`,
    },
    {
      label: `first start after an install or upgrade (no code cache yet), median of ${rounds}`,
      value: median(uncached),
      unit: 'ms',
      baseline,
      note: `the same launch with NODE_DISABLE_COMPILE_CACHE=1: what the code cache saves from the second start on; p10 ${ms(percentile(uncached, 10))}, p90 ${ms(percentile(uncached, 90))}`,
    },
    {
      label: 'node printing one word in the pseudo-terminal, from its launch',
      value: median(pty0),
      unit: 'ms',
      baseline,
      note: 'node -e 0 measured as the dashboard is (to the word on the terminal rather than to its exit)',
    },
    {
      label: 'the floor: React + Ink alone drawing one line, bundled and loaded as the dashboard is',
      value: median(floor),
      unit: 'ms',
      baseline,
      note: `lib/ink-floor.tsx in the same pty, from its launch, through the code cache as the dashboard; p10 ${ms(percentile(floor, 10))}, p90 ${ms(percentile(floor, 90))}`,
    },
    {
      label: 'the dashboard against that floor',
      value: median(dash),
      unit: 'ms',
      baseline: { label: 'React + Ink alone, median', value: median(floor) },
      target: { maxRatio: 1.8 },
      note: 'what the dashboard adds: contract, HTTP client, two requests, its screens and first render',
    },
    {
      label: 'breakdown: node boot (bootstrap complete)',
      value: boot,
      unit: 'ms',
      note: `medians of ${probeRuns} runs with lib/start-probe.mjs preloaded, ms since the process started`,
    },
    {
      label: 'breakdown: bundle loaded, first request created',
      value: toReq,
      unit: 'ms',
      note: `module loading and setup: ${ms(toReq - boot)} after boot`,
    },
    { label: 'breakdown: GET /session, request to response headers', value: sessionRt, unit: 'ms' },
    { label: 'breakdown: GET /connectors, request to whole answer', value: connRt, unit: 'ms' },
    {
      label: 'breakdown: connectors answer to the frame showing them',
      value: afterResponse,
      unit: 'ms',
      note: 'reading the answer, the first (cold) React/Ink render, the write',
    },
    {
      label: 'breakdown: frame with connector data written',
      value: toData,
      unit: 'ms',
      note: `first frame of any kind at ${ms(toFirstFrame)}; the probe itself adds a little to every step`,
    },
    {
      label: 'breakdown (overview): GET /deployment, request to whole answer',
      value: deploymentRt,
      unit: 'ms',
      note: `its first request created at ${ms(overviewToReq)} (connectors: ${ms(toReq)})`,
    },
    {
      label: "breakdown (overview): deployment answer to the board's frame",
      value: overviewAfterResponse,
      unit: 'ms',
      note: `the frame with data written at ${ms(overviewMed((m) => m.dataFrame))}`,
    },
    {
      label: 'code loaded before the first frame (dist chunks)',
      value: graph.bytes / 1024,
      unit: 'KiB',
      note: `${graph.chunks.length} chunks, ${graph.lazy.length} left lazy; largest sources (KiB): ${top}`,
    },
    {
      label: 'server, fastify, better-sqlite3, pino, oidc-provider, qrcode sources on that path',
      value: forbidden.length,
      unit: 'files',
      target: { max: 0 },
      note: forbidden.length
        ? `e.g. ${forbidden.slice(0, 4).join(', ')}`
        : 'none: they load only for serve/demo/login (openid-client is in the bundle, run only for a sign-in)',
    },
  ];
}
