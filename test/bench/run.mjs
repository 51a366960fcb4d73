#!/usr/bin/env node
// The benchmark harness (`npm run bench` builds dist first, then runs this).
//
//   node test/bench/run.mjs [--quick] [--strict] [NAME …]
//
// Runs every test/bench/*.bench.ts (or .mjs) in a fresh child process (`node --import tsx`), one
// after the other so they never compete for the CPU, and prints each figure beside its baseline
// measured in the same run, the ratio, and PASS/FAIL for its target. NAME selects benchmarks by
// exact name or by prefix (`server` runs server-*). --quick shrinks iteration counts to check that
// a benchmark works (its figures are not for RESULTS.md).
//
// Exit status: 1 when a benchmark crashed (threw, exited non-zero, timed out or sent no figures),
// 2 for a usage error, otherwise 0 even when targets fail: a target failing is a finding to report,
// and this machine is shared, so a slow figure is not always the code's fault. --strict also exits 1
// when a target fails. The last run is written to test/bench/out/last-run.json.
import { fork } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO = join(BENCH_DIR, '..', '..');
const OUT_DIR = join(BENCH_DIR, 'out');
const CHILD = join(BENCH_DIR, 'lib', 'child.mjs');
/** generous: the first server-scale run also generates a 1,000,000-row database */
const TIMEOUT_MS = 30 * 60_000;

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const names = args.filter((a) => !a.startsWith('--'));
for (const f of flags) {
  if (!['--quick', '--strict'].includes(f)) {
    console.error(`unknown option ${f}\nusage: node test/bench/run.mjs [--quick] [--strict] [NAME …]`);
    process.exit(2);
  }
}

const all = readdirSync(BENCH_DIR)
  .filter((f) => /\.bench\.(ts|mjs)$/.test(f))
  .sort()
  .map((f) => ({ name: f.replace(/\.bench\.(ts|mjs)$/, ''), file: join(BENCH_DIR, f) }));
const selected = names.length === 0 ? all : all.filter((b) => names.some((n) => b.name === n || b.name.startsWith(n)));
const unknown = names.filter((n) => !all.some((b) => b.name === n || b.name.startsWith(n)));
if (unknown.length) {
  console.error(`no benchmark named ${unknown.join(', ')}; there are: ${all.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    date: new Date().toISOString(),
    cpus: availableParallelism(),
    cpu: /model name\s*:\s*(.+)/.exec(cpuinfo)?.[1]?.trim() ?? 'unknown',
    ram_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
  };
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function fmt(v) {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  if (a >= 1000 || Number.isInteger(v)) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

/** PASS/FAIL/'' and the target as text. */
function judge(fig) {
  const t = fig.target;
  if (!t) return { verdict: '', text: '' };
  const ratio = fig.baseline && fig.baseline.value !== 0 ? fig.value / fig.baseline.value : undefined;
  const parts = [];
  let ok = true;
  const check = (cond, text) => {
    parts.push(text);
    if (!cond) ok = false;
  };
  if (t.max !== undefined) check(fig.value <= t.max, `<= ${fmt(t.max)} ${fig.unit}`);
  if (t.min !== undefined) check(fig.value >= t.min, `>= ${fmt(t.min)} ${fig.unit}`);
  if (t.maxRatio !== undefined) check(ratio !== undefined && ratio <= t.maxRatio, `<= ${t.maxRatio}x baseline`);
  if (t.minRatio !== undefined) check(ratio !== undefined && ratio >= t.minRatio, `>= ${t.minRatio}x baseline`);
  return { verdict: ok ? 'PASS' : 'FAIL', text: parts.join(', ') };
}

function printTable(rows) {
  const header = ['figure', 'value', 'baseline', 'ratio', 'target', 'result'];
  const cells = rows.map((f) => {
    const j = judge(f);
    const ratio = f.baseline && f.baseline.value !== 0 ? `${(f.value / f.baseline.value).toFixed(2)}x` : '';
    return [
      f.label,
      `${fmt(f.value)} ${f.unit}`,
      f.baseline ? `${fmt(f.baseline.value)} ${f.unit} (${f.baseline.label})` : '',
      ratio,
      j.text,
      j.verdict,
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => `  ${c.map((x, i) => x.padEnd(widths[i])).join('  ')}`.trimEnd();
  console.log(line(header));
  for (const [i, c] of cells.entries()) {
    console.log(line(c));
    if (rows[i].note) console.log(`      ${rows[i].note}`);
  }
}

function runOne(bench) {
  return new Promise((resolve) => {
    const child = fork(CHILD, [bench.file, OUT_DIR], {
      cwd: REPO,
      // the bundle's Ink frame builder (scripts/ink-frame.mjs) for code run from source
      execArgv: ['--import', 'tsx', '--import', './scripts/ink-frame-register.mjs'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, BENCH_QUICK: flags.has('--quick') ? '1' : '0', NODE_OPTIONS: '' },
    });
    let figures;
    let why = '';
    child.on('message', (m) => {
      if (m?.type === 'figures') figures = m.figures;
    });
    const timer = setTimeout(() => {
      why = `timed out after ${TIMEOUT_MS / 60_000} min`;
      child.kill('SIGKILL');
    }, TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (!why && (code !== 0 || signal)) why = `exited with ${signal ?? code}`;
      if (!why && !Array.isArray(figures)) why = 'sent no figures';
      resolve(why ? { error: why } : { figures });
    });
  });
}

mkdirSync(OUT_DIR, { recursive: true });
const m = machine();
console.log(`machine: ${m.cpus} CPUs, ${m.cpu}, ${m.ram_gb} GB RAM, Node ${m.node}; ${m.date}`);
if (flags.has('--quick')) console.log('--quick: reduced iterations, figures are indicative only');

const report = { machine: m, quick: flags.has('--quick'), benchmarks: [] };
let crashed = 0;
let failed = 0;
for (const bench of selected) {
  const loadBefore = load();
  console.log(`\n${bench.name} (load average ${loadBefore})`);
  const started = Date.now();
  const result = await runOne(bench);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const entry = { name: bench.name, seconds: Number(seconds), load_before: loadBefore, load_after: load(), ...result };
  report.benchmarks.push(entry);
  if (result.error) {
    crashed++;
    console.log(`  CRASHED: ${result.error}`);
    continue;
  }
  printTable(result.figures);
  failed += result.figures.filter((f) => judge(f).verdict === 'FAIL').length;
  console.log(`  (${seconds} s, load average after ${entry.load_after})`);
}
writeFileSync(join(OUT_DIR, 'last-run.json'), `${JSON.stringify(report, null, 2)}\n`);

const figures = report.benchmarks.flatMap((b) => b.figures ?? []);
const targeted = figures.filter((f) => f.target).length;
console.log(
  `\n${selected.length} benchmark(s), ${figures.length} figures, ${targeted - failed}/${targeted} targets met, ${failed} failed, ${crashed} crashed`,
);
process.exitCode = crashed > 0 || (flags.has('--strict') && failed > 0) ? 1 : 0;
