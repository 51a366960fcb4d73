// Preloaded by the dashboard-memory benchmark only (`node --import …/mem-probe.mjs bin/…`): every
// BENCH_MEM_EVERY_MS (default 10 s) appends the process's memory figures as one JSON line to
// BENCH_MEM_OUT. The timer is unref'd: it never keeps the dashboard running.
import { appendFileSync } from 'node:fs';

const out = process.env.BENCH_MEM_OUT;
const every = Number(process.env.BENCH_MEM_EVERY_MS ?? 10_000);
if (out) {
  const t0 = Date.now();
  const sample = () => {
    const m = process.memoryUsage();
    appendFileSync(
      out,
      `${JSON.stringify({ t: Date.now() - t0, rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers })}\n`,
    );
  };
  setInterval(sample, every).unref();
}
