// Load generator for server-load, forked as its own process so it never shares an event loop with
// the server or the benchmark. It gets its plan over IPC (secrets never on argv), runs it against
// 127.0.0.1 only, for a bounded time, and sends back the measurements.
//
//   dashboards: each an undici Client (one TCP connection, as a dashboard has), polling its paths
//     one after the other every pollMs with If-None-Match, phases spread over the period;
//   gateway: an open-loop schedule of `rate` POSTs per second over a Pool, round-robin over keys;
//     latency counts from the scheduled moment, so a stalled server cannot hide its queue
//     (no coordinated omission).
// Samples from the first warmupMs are dropped (JIT warm-up of both processes).
import { Client, Pool } from 'undici';

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

function summary(samples) {
  const s = Float64Array.from(samples).sort();
  const at = (p) => (s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN);
  return { count: s.length, p50: at(50), p90: at(90), p99: at(99), max: s.length ? s[s.length - 1] : NaN };
}

async function run(plan) {
  const url = new URL(plan.url);
  if (url.hostname !== '127.0.0.1') throw new Error(`load only against 127.0.0.1, not ${url.hostname}`);
  const start = now();
  const end = start + plan.durationMs;
  const measuredFrom = start + plan.warmupMs;
  const admin = [];
  const adminPath = Object.fromEntries(plan.paths.map((p) => [p, []]));
  const gateway = [];
  const gatewayFromSend = [];
  const status = {};
  const byPath = {};
  const errors = [];
  let notModified = 0;
  let adminCount = 0;
  let gatewaySent = 0;
  let transportErrors = 0;
  const note = (kind, what) => {
    if (errors.length < 20) errors.push(`${kind}: ${what}`);
  };

  async function dashboard(i) {
    const client = new Client(plan.url, { pipelining: 1, keepAliveTimeout: 10_000 });
    const etags = new Map();
    const phase = (plan.pollMs * i) / plan.dashboards;
    try {
      for (let k = 0; ; k++) {
        const due = start + phase + k * plan.pollMs;
        if (due >= end) break;
        await sleep(due - now());
        for (const path of plan.paths) {
          const t0 = now();
          try {
            const headers = { authorization: `Bearer ${plan.adminToken}` };
            if (etags.has(path)) headers['if-none-match'] = etags.get(path);
            const res = await client.request({ method: 'GET', path, headers });
            await res.body.dump();
            const ms = now() - t0;
            status[`GET ${res.statusCode}`] = (status[`GET ${res.statusCode}`] ?? 0) + 1;
            byPath[path] ??= {};
            byPath[path][res.statusCode] = (byPath[path][res.statusCode] ?? 0) + 1;
            if (res.statusCode === 200) etags.set(path, res.headers.etag);
            else if (res.statusCode !== 304) note('admin', `${path} answered ${res.statusCode}`);
            if (t0 >= measuredFrom) {
              admin.push(ms);
              adminPath[path].push(ms);
              adminCount++;
              if (res.statusCode === 304) notModified++;
            }
          } catch (err) {
            transportErrors++;
            note('admin', `${path}: ${err.code ?? err.message}`);
          }
        }
      }
    } finally {
      await client.close();
    }
  }

  async function gatewayLoad() {
    const pool = new Pool(plan.url, { connections: plan.gatewayConnections, pipelining: 1, keepAliveTimeout: 10_000 });
    const body = JSON.stringify({
      messages: [{ role: 'user', content: 'Summarise the travel policy in two sentences.' }],
      max_tokens: 64,
    });
    const interval = 1000 / plan.rate;
    const inflight = new Set();
    try {
      for (let k = 0; ; k++) {
        const due = start + k * interval;
        if (due >= end) break;
        if (due > now()) await sleep(due - now());
        const key = plan.gatewayKeys[k % plan.gatewayKeys.length];
        const workload = plan.workloads[k % plan.workloads.length];
        const sent = now();
        gatewaySent++;
        const p = pool
          .request({
            method: 'POST',
            path: `/v1/gateway/${workload}`,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body,
          })
          .then(async (res) => {
            await res.body.dump();
            const done = now();
            status[`POST ${res.statusCode}`] = (status[`POST ${res.statusCode}`] ?? 0) + 1;
            if (res.statusCode !== 200) note('gateway', `answered ${res.statusCode}`);
            if (due >= measuredFrom) {
              gateway.push(done - due);
              gatewayFromSend.push(done - sent);
            }
          })
          .catch((err) => {
            transportErrors++;
            note('gateway', err.code ?? err.message);
          })
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
      await Promise.all(inflight);
    } finally {
      await pool.close();
    }
  }

  const cpu0 = process.cpuUsage();
  await Promise.all([...Array.from({ length: plan.dashboards }, (_, i) => dashboard(i)), gatewayLoad()]);
  const cpu = process.cpuUsage(cpu0);
  const seconds = (now() - start) / 1000;
  const measuredSeconds = (now() - measuredFrom) / 1000;
  return {
    seconds,
    admin: summary(admin),
    adminByPath: Object.fromEntries(Object.entries(adminPath).map(([p, ms]) => [p, summary(ms)])),
    adminRate: adminCount / measuredSeconds,
    notModified,
    gateway: summary(gateway),
    gatewayFromSend: summary(gatewayFromSend),
    gatewayRate: gatewaySent / seconds,
    status,
    byPath,
    errorCount:
      Object.entries(status)
        .filter(([k]) => !/ (200|304)$/.test(k))
        .reduce((n, [, v]) => n + v, 0) + transportErrors,
    errors,
    generatorCpuPercent: ((cpu.user + cpu.system) / 1e3 / (seconds * 1000)) * 100,
  };
}

process.once('message', async (plan) => {
  try {
    const result = await run(plan);
    process.send({ type: 'result', result }, () => process.exit(0));
  } catch (err) {
    process.send({ type: 'error', error: String(err?.stack ?? err) }, () => process.exit(1));
  }
});
