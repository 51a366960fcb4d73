// One benchmark in its own process: `node --import tsx test/bench/lib/child.mjs FILE`. Imports the
// module, runs it and sends its figures to the harness over IPC; exits 1 when it throws.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';

const [file, outDir] = process.argv.slice(2);
const expected = basename(file).replace(/\.bench\.(ts|mjs)$/, '');

try {
  const mod = await import(pathToFileURL(file).href);
  const bench = typeof mod.run === 'function' ? mod : mod.default;
  if (!bench || typeof bench.run !== 'function') throw new Error(`${file} exports no run()`);
  if (bench.name !== expected) throw new Error(`${file} exports name '${bench.name}', expected '${expected}'`);
  const ctx = {
    outDir,
    quick: process.env.BENCH_QUICK === '1',
    log: (m) => process.stderr.write(`  [${expected}] ${m}\n`),
  };
  const figures = await bench.run(ctx);
  await new Promise((resolve, reject) =>
    process.send({ type: 'figures', figures }, (err) => (err ? reject(err) : resolve())),
  );
  // a benchmark may leave handles (timers, pools) open: its figures are in, so end now
  process.exit(0);
} catch (err) {
  process.stderr.write(`  [${expected}] crashed: ${err?.stack ?? err}\n`);
  process.exit(1);
}
