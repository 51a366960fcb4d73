import { createReadStream, createWriteStream, existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { hashEntry, ZERO_HASH } from '../../src/audit-verify/entry-hash.js';
import { readTrail } from '../../src/audit-verify/read-trail.js';
import { verifyTrail } from '../../src/audit-verify/verify-trail.js';
import type { BenchContext, Figure } from './lib/types.js';

export const name = 'audit-verify';

const ENTRIES = 1_000_000;
const QUICK_ENTRIES = 100_000;
const ACTIONS = ['gateway.key.create', 'gateway.key.revoke', 'settings.update', 'audit.export', 'routing.update'];

/** A chained JSON Lines export of `count` entries of the served shape, cached in out/ (generator v1). */
async function chainedFile(ctx: BenchContext, count: number): Promise<string> {
  const file = join(ctx.outDir, `audit-chain-${count}-g1.jsonl`);
  if (existsSync(file)) return file;
  ctx.log(`generating ${count.toLocaleString('en-US')} chained entries…`);
  const out = createWriteStream(`${file}.part`);
  let prev = ZERO_HASH;
  let batch = '';
  for (let seq = 1; seq <= count; seq++) {
    const e: Record<string, unknown> = {
      id: `aud_${seq.toString(36).padStart(10, '0')}`,
      at: new Date(Date.UTC(2026, 9, 1) + seq * 2500).toISOString(),
      actor: { subject: seq % 3 ? 'alice.admin@northwind.example' : 'svc-siem-export', role: 'it_admin' },
      action: ACTIONS[seq % ACTIONS.length],
      target: { type: 'gateway_key', id: `key_${seq % 977}`, name: seq % 4 ? `billing-batch-${seq % 31}` : null },
      outcome: seq % 11 ? 'success' : 'denied',
      status: seq % 11 ? 200 : 403,
      request_id: `req-${seq.toString(16)}`,
      source_ip: '10.20.12.4',
      details: seq % 5 ? { reason: 'rotated', filters: { action: 'gateway.key.*' } } : {},
      seq,
      prev_hash: prev,
    };
    e.hash = hashEntry(e);
    prev = e.hash as string;
    batch += `${JSON.stringify(e)}\n`;
    if (batch.length > 1 << 20) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(batch);
  await once(out, 'finish');
  renameSync(`${file}.part`, file);
  return file;
}

const chunks = (file: string) => createReadStream(file, { highWaterMark: 1 << 20 });

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const count = ctx.quick ? QUICK_ENTRIES : ENTRIES;
  const file = await chainedFile(ctx, count);

  // the baseline: the same file read and split the same way, JSON.parse only
  let t = performance.now();
  let parsed = 0;
  for await (const batch of readTrail(chunks(file))) parsed += batch.length;
  const parseMs = performance.now() - t;

  t = performance.now();
  const report = await verifyTrail(readTrail(chunks(file)), {});
  const verifyMs = performance.now() - t;
  if (report.entries !== count || parsed !== count || report.findings.length !== 1)
    throw new Error(`unexpected: ${report.entries} entries, findings ${report.findings.join('; ')}`);

  const rate = (ms: number) => Math.round(count / (ms / 1000));
  return [
    {
      label: `verify ${count.toLocaleString('en-US')} chained entries (JSON Lines)`,
      value: rate(verifyMs),
      unit: 'entries/s',
      baseline: { label: 'read, split and JSON.parse only', value: rate(parseMs) },
      target: { min: 200_000 },
      note: `${Math.round(verifyMs)} ms vs ${Math.round(parseMs)} ms, rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
    },
  ];
}
