/** The shape every benchmark module in test/bench/*.bench.ts follows (the harness is test/bench/run.mjs). */

/** A figure's goal; every bound given must hold. Ratios are value / baseline.value. */
export interface Target {
  max?: number;
  min?: number;
  maxRatio?: number;
  minRatio?: number;
}

export interface Figure {
  /** what was measured, e.g. 'audit page of 100, actor filter: p99' */
  label: string;
  value: number;
  /** 'ms', 'rows/s', 'MB', 'count' … */
  unit: string;
  /** the same thing measured the plain way in the same run (raw SQL, sqlite3 CLI, `node -e 0` …) */
  baseline?: { label: string; value: number };
  /** omitted: the figure is for information */
  target?: Target;
  /** one short line: the command, a p50, the load average … */
  note?: string;
}

export interface BenchContext {
  /** test/bench/out (gitignored): caches and scratch files */
  outDir: string;
  /** `--quick`: fewer iterations and shorter runs, to check the benchmark works; not for RESULTS.md */
  quick: boolean;
  /** progress on stderr */
  log(message: string): void;
}

export interface Benchmark {
  /** the file name without .bench.ts; `node test/bench/run.mjs NAME` runs this one */
  name: string;
  run(ctx: BenchContext): Promise<Figure[]>;
}
