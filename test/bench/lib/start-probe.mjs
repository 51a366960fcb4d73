// Preloaded (`node --import ./test/bench/lib/start-probe.mjs bin/appliance-admin.cjs …`) by the
// dashboard-start benchmark's breakdown runs only; the timed runs load nothing extra. Notes when
// node finished booting, each undici request (diagnostics channels), and the first frames the
// dashboard writes, then writes them as JSON to BENCH_PROBE_OUT once connector data is on screen.
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const out = process.env.BENCH_PROBE_OUT;
const needle = process.env.BENCH_PROBE_TEXT ?? 'Team share';
const now = () => performance.now();
const marks = { probe: now(), requests: [], writes: [] };
const byRequest = new WeakMap();

dc.subscribe('undici:request:create', ({ request }) => {
  const r = { path: request.path, created: now() };
  byRequest.set(request, r);
  marks.requests.push(r);
});
dc.subscribe('undici:client:connected', () => {
  marks.connected ??= now();
});
dc.subscribe('undici:client:sendHeaders', ({ request }) => {
  const r = byRequest.get(request);
  if (r) r.sent = now();
});
dc.subscribe('undici:request:headers', ({ request, response }) => {
  const r = byRequest.get(request);
  if (r) {
    r.headers = now();
    r.status = response.statusCode;
  }
});
dc.subscribe('undici:request:trailers', ({ request }) => {
  const r = byRequest.get(request);
  if (r) r.done = now();
});

const write = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => {
  const s = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  const t = now();
  marks.firstWrite ??= t;
  if (marks.writes.length < 40 && marks.dataFrame === undefined) marks.writes.push([Math.round(t * 10) / 10, s.length]);
  if (marks.firstFrame === undefined && s.includes('appliance-admin')) marks.firstFrame = t;
  if (marks.dataFrame === undefined && s.includes(needle)) {
    marks.dataFrame = t;
    const n = performance.nodeTiming;
    marks.node = {
      nodeStart: n.nodeStart,
      v8Start: n.v8Start,
      environment: n.environment,
      bootstrapComplete: n.bootstrapComplete,
      loopStart: n.loopStart,
    };
    if (out) writeFileSync(out, JSON.stringify(marks));
  }
  return write(chunk, ...rest);
};
