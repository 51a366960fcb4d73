import { rmSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer } from '../helpers/server.js';
import { copyAuditDb, END_MS, ensureAuditDb } from './lib/audit-db.js';
import { loadAverage, median, nowMs } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 40 §7: `audit sample 25 --since 90d` over 1,000,000 entries, the whole command as an auditor
 * runs it (the built CLI started, the newest checkpoint and its note verified, the remembered
 * checkpoint's consistency proof, the population's first leaf, 25 entries and their inclusion proofs,
 * the proof file verified before it is written), against the server on loopback over a copy of the
 * benchmarks' 1,000,000-entry trail (lib/audit-db.ts). The plain figure: the same CLI started for
 * `--version`, which reads nothing. Each written sample is checked with verify-proof now and then.
 */
export const name = 'audit-sample';

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const rows = ctx.quick ? 100_000 : 1_000_000;
  const runs = ctx.quick ? 3 : 10;
  await ensureBuilt();
  const src = ensureAuditDb(ctx.outDir, rows, ctx.log);
  const dataDir = copyAuditDb(src, ctx.outDir, 'audit-sample');
  const work = tempDir('aa-bench-sample');
  try {
    const s = await startTestServer({ dataDir });
    try {
      const listed = (await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' })).json;
      const key = join(work, 'appliance.pem');
      writeFileSync(key, listed.public_keys[0].public_key_pem);
      const token = writeTokenFile(s.tokens.auditor);
      const state = join(work, 'state');
      // the whole 30-day trail is the population (90 days before its end), as `--since 90d` on the day
      const since = new Date(END_MS - 90 * 86_400_000).toISOString().slice(0, 19) + 'Z';
      const sample: number[] = [];
      const plain: number[] = [];
      let population = '';
      for (let i = 0; i < runs; i++) {
        const out = join(work, `sample-${i}`);
        const t0 = nowMs();
        const r = await runCli(
          ['audit', 'sample', '25', '--since', since, '-o', out, '--url', s.url, '--token-file', token, '--key', key],
          { env: { XDG_STATE_HOME: state }, timeoutMs: 60_000 },
        );
        sample.push(nowMs() - t0);
        if (r.code !== 0) throw new Error(`audit sample exited ${r.code}: ${r.stdout}${r.stderr}`);
        population = /: 25 of ([\d,]+) entries/.exec(r.stdout)?.[1] ?? '?';
        if (i % 5 === 0) {
          const v = await runCli(['audit', 'verify-proof', join(out, 'sample.proof.json'), '--key', key], {
            env: { XDG_STATE_HOME: state },
          });
          if (v.code !== 0) throw new Error(`the sample does not verify: ${v.stdout}`);
          if (JSON.parse(readFileSync(join(out, 'sample.proof.json'), 'utf8')).entries.length !== 25)
            throw new Error('the sample does not hold 25 entries');
        }
        const p0 = nowMs();
        await runCli(['--version']);
        plain.push(nowMs() - p0);
      }
      const worst = Math.max(...sample);
      ctx.log(
        `audit sample 25 of ${population}: median ${median(sample).toFixed(0)} ms, worst ${worst.toFixed(0)} ms; ` +
          `--version median ${median(plain).toFixed(0)} ms; load average ${loadAverage()}`,
      );
      return [
        {
          label: `audit sample 25 --since 90d over ${rows.toLocaleString('en-US')} entries (population ${population}), worst of ${runs}`,
          value: worst,
          unit: 'ms',
          baseline: { label: 'the same CLI started for --version (reads nothing)', value: median(plain) },
          target: { max: 1000 },
          note: `median ${median(sample).toFixed(0)} ms, the whole command with its child process's start`,
        },
      ];
    } finally {
      await s.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}
