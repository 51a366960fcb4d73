import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { request } from 'undici';
import { GENESIS_HASH as ZERO_HASH } from '../../src/audit-chain/canonical.js';
import type { AuditEntry } from '../../src/contract/index.js';
import { canonicalLine, entryHash } from '../../src/audit-chain/canonical.js';
import { keyFingerprint } from '../../src/audit-chain/checkpoint.js';
import { readTrail } from '../../src/audit-chain/read-trail.js';
import { signStatement } from '../../src/audit-chain/statement.js';
import { verifyTrail } from '../../src/audit-chain/verify-trail.js';
import { REPO, issueToken, startServer } from './lib/cli-server.js';
import type { BenchContext, Figure } from './lib/types.js';

export const name = 'audit-verify';

const ENTRIES = 1_000_000;
const QUICK_ENTRIES = 100_000;
const ACTIONS = ['gateway.key.create', 'gateway.key.revoke', 'settings.update', 'audit.export', 'routing.update'];

/**
 * A chained JSON Lines export of `count` entries of the served shape, each line as the appliance's
 * export writes it (canonical text, hash last: src/audit-chain/canonical.ts), cached in out/ (generator v3, with its
 * last hash beside it).
 */
async function chainedFile(ctx: BenchContext, count: number): Promise<string> {
  const file = join(ctx.outDir, `audit-chain-${count}-g3.jsonl`);
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
    const entry = { ...(e as unknown as Omit<AuditEntry, 'hash'>), hash: entryHash(e as unknown as AuditEntry) };
    prev = entry.hash;
    batch += `${canonicalLine(entry)}\n`;
    if (batch.length > 1 << 20) {
      if (!out.write(batch)) await once(out, 'drain');
      batch = '';
    }
  }
  out.end(batch);
  await once(out, 'finish');
  writeFileSync(`${file}.head`, prev);
  renameSync(`${file}.part`, file);
  return file;
}

/** The appliance's signed statement of the generated file: the whole trail, #1 to its last entry. */
function wholeTrailStatement(file: string, count: number) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const key = { privateKey, fingerprint: keyFingerprint(publicKey) };
  const last = readFileSync(`${file}.head`, 'utf8');
  const statement = signStatement(
    {
      type: 'audit-export',
      version: 1,
      at: new Date().toISOString(),
      request_id: 'req_bench',
      format: 'jsonl',
      filters: {},
      head: { seq: count, hash: last },
      count,
      first_seq: 1,
      last_seq: count,
      first_prev_hash: ZERO_HASH,
      last_hash: last,
      contiguous: true,
      digest: null,
    },
    key,
  );
  return { statement, trust: { keys: new Map([[key.fingerprint, publicKey]]), pinned: true, source: 'the bench key' } };
}

const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const chunks = (file: string) => createReadStream(file, { highWaterMark: 1 << 20 });

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const count = ctx.quick ? QUICK_ENTRIES : ENTRIES;
  const file = await chainedFile(ctx, count);

  // the baseline: the same file read, split and each line hashed (readTrail), without the chain's checks
  let t = performance.now();
  let parsed = 0;
  for await (const batch of readTrail(chunks(file))) parsed += batch.length;
  const parseMs = performance.now() - t;

  t = performance.now();
  const report = await verifyTrail(readTrail(chunks(file)), wholeTrailStatement(file, count));
  const verifyMs = performance.now() - t;
  if (report.entries !== count || parsed !== count || report.verdict !== 'verified')
    throw new Error(`unexpected: ${report.entries} entries, findings ${report.findings.join('; ')}`);

  const rate = (ms: number) => Math.round(count / (ms / 1000));
  return [
    ...(await evidencePack(ctx)),
    {
      label: `verify ${count.toLocaleString('en-US')} chained entries (JSON Lines)`,
      value: rate(verifyMs),
      unit: 'entries/s',
      baseline: { label: 'readTrail alone: read, split, hash each line', value: rate(parseMs) },
      target: { min: 200_000 },
      note: `${Math.round(verifyMs)} ms vs ${Math.round(parseMs)} ms, rss ${rssMb()} MB`,
    },
  ];
}

const execFileAsync = promisify(execFile);

/**
 * `evidence --since 30d` against the demo appliance (30 days of history), beside `export audit`
 * of the same range alone, both through the built CLI. Needs the audit chain (its checkpoints
 * route): without it there is no figure.
 */
async function evidencePack(ctx: BenchContext): Promise<Figure[]> {
  const work = mkdtempSync(join(ctx.outDir, 'work-evidence-'));
  const server = await startServer(join(work, 'data'), ['--demo']);
  try {
    const tokenFile = join(work, 'token');
    writeFileSync(tokenFile, issueToken(join(work, 'data'), 'auditor', 'bench-auditor'), { mode: 0o600 });
    const probe = await request(`${server.url}/v1/admin/audit/checkpoints?limit=1`, {
      headers: { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` },
    });
    await probe.body.dump();
    if (probe.statusCode === 404) {
      ctx.log('no audit chain on this server (no /audit/checkpoints): the evidence pack figure is skipped');
      return [];
    }
    const cli = (args: string[]) =>
      execFileAsync(
        process.execPath,
        [join(REPO, 'bin', 'appliance-admin.cjs'), ...args, '--url', server.url, '--token-file', tokenFile],
        {
          cwd: REPO,
          env: { ...process.env, NODE_OPTIONS: '' },
        },
      );
    let t = performance.now();
    await cli(['export', 'audit', '--format', 'jsonl', '--since', '30d', '-o', join(work, 'audit.jsonl')]);
    const exportMs = performance.now() - t;
    t = performance.now();
    await cli(['evidence', '--since', '30d', '-o', join(work, 'pack')]);
    const packMs = performance.now() - t;
    return [
      {
        label: 'evidence --since 30d of the demo appliance',
        value: Math.round(packMs),
        unit: 'ms',
        baseline: { label: 'export audit --since 30d (jsonl) alone', value: Math.round(exportMs) },
        target: { max: 10_000 },
      },
    ];
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}
