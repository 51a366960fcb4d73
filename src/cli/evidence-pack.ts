import { createHash } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { statementFileOf } from '../audit-chain/statement-file.js';
import { ApiError } from '../client/errors.js';
import { thousands } from '../text/thousands.js';
import { VERSION } from '../version.js';
import { PACK_README, roleMatrix, secretIn } from './evidence-contents.js';

/**
 * Where a pack's contents come from: the CLI's streaming connection, or the dashboard's client.
 * `json` takes a contract route name; `exportTo` streams an export into `file` and says what its
 * headers carried (the signed checkpoint, whether it was filtered) and how many lines it held.
 */
export interface PackSource {
  json(route: string, query?: Record<string, unknown>): Promise<unknown>;
  exportTo(
    route: 'exportAudit' | 'exportJournal',
    query: Record<string, unknown>,
    file: string,
  ): Promise<{ headers: { statement: string | null; checkpoint: string | null }; lines: number }>;
}

export interface PackOptions {
  /** the range's start, RFC 3339 */
  since: string;
  madeAt: string;
  /** the appliance as shown (no credentials) */
  url: string;
  /** the bearer token the pack was made with, to make sure it is nowhere in it ('' when not at hand) */
  token: string;
  /** called before each part is fetched, with what it is */
  onStep?: (what: string) => void;
}

export type PackResult =
  | { ok: true; files: number; auditEntries: number; checkpointSeq: number | null; csvCheckpointSeq: number | null }
  | { ok: false; file: string; line: number; secret: string };

/**
 * Writes an evidence pack into `dir` (made and empty): every part, a scan for secrets (a pack
 * holding one is removed whole), then the manifest. The caller removes `dir` when this throws.
 */
export async function makeEvidencePack(src: PackSource, dir: string, o: PackOptions): Promise<PackResult> {
  const facts = await writePack(src, dir, o);
  o.onStep?.('scanning for secrets');
  for (const f of readdirSync(dir)) {
    const found = await secretIn(join(dir, f), o.token);
    if (found) {
      await rm(dir, { recursive: true, force: true });
      return { ok: false, file: f, ...found };
    }
  }
  await writeManifest(dir, facts);
  return {
    ok: true,
    files: readdirSync(dir).length,
    auditEntries: facts.audit_entries,
    checkpointSeq: facts.checkpoint_seq,
    csvCheckpointSeq: facts.csv_checkpoint_seq,
  };
}

/**
 * The pack's audit trail in a line, for the CLI and the dashboard: JSON Lines and CSV are two
 * exports, each ending at its own signed checkpoint (the second export's entry comes after the first).
 */
export function auditTrailSummary(made: Extract<PackResult, { ok: true }>, since: string): string {
  const cp = (seq: number | null) => (seq === null ? 'no checkpoint' : `checkpoint #${thousands(seq)}`);
  return (
    `${thousands(made.auditEntries)} entries since ${since}, in two exports: ` +
    `audit.jsonl (${cp(made.checkpointSeq)}) and audit.csv (${cp(made.csvCheckpointSeq)})`
  );
}

interface PackFacts {
  since: string;
  madeAt: string;
  url: string;
  made_by: unknown;
  audit_entries: number;
  checkpoint_seq: number | null;
  csv_checkpoint_seq: number | null;
  appliance_version: unknown;
}

async function writePack(a: PackSource, dir: string, p: PackOptions): Promise<PackFacts> {
  const o = { since: p.since, madeAt: p.madeAt, url: p.url };
  const step = p.onStep ?? (() => {});
  const session = (await a.json('session')) as Record<string, unknown>;
  const filters = { start_time: o.since };
  // purpose=evidence puts "this export made an evidence pack" in the export's own audit entry
  step('audit trail (JSON Lines)');
  const jsonl = await a.exportTo(
    'exportAudit',
    { format: 'jsonl', ...filters, purpose: 'evidence' },
    join(dir, 'audit.jsonl'),
  );
  // named as `export audit -o FILE` names it (FILE.checkpoint.json), so `audit verify audit.jsonl` finds it
  const jsonlSeq = await writeStatement(dir, 'audit.jsonl', jsonl.headers);
  step('audit trail (CSV)');
  const csv = await a.exportTo(
    'exportAudit',
    { format: 'csv', ...filters, purpose: 'evidence' },
    join(dir, 'audit.csv'),
  );
  const csvSeq = await writeStatement(dir, 'audit.csv', csv.headers);
  step('agent journal');
  await a.exportTo('exportJournal', { format: 'jsonl', ...filters, purpose: 'evidence' }, join(dir, 'journal.jsonl'));
  step('keys, models, routing, settings, deployment, install plan, budgets');
  const keys = await publicKeys(a);
  await writeJson(dir, 'public-keys.json', keys);
  await writeJson(dir, 'keys.json', await allPages(a, 'listKeys'));
  await writeJson(dir, 'models.json', await allPages(a, 'listModels'));
  await writeJson(dir, 'routing.json', await allPages(a, 'listRouting'));
  const deployment = await a.json('deployment');
  for (const [file, route] of [
    ['settings.json', 'settings'],
    ['install-plan.json', 'installPlan'],
    ['budgets.json', 'getBudgets'],
  ] as const)
    await writeJson(dir, file, await a.json(route));
  await writeJson(dir, 'deployment.json', deployment);
  await writeJson(dir, 'role-matrix.json', roleMatrix());
  const fingerprints = Array.isArray(keys) ? keys.map((k) => String((k as { fingerprint?: unknown }).fingerprint)) : [];
  await writeFile(join(dir, 'README.txt'), PACK_README({ ...o, fingerprints }), { mode: 0o600 });
  return {
    ...o,
    made_by: { subject: session.subject, role: session.role },
    audit_entries: jsonl.lines,
    checkpoint_seq: jsonlSeq,
    csv_checkpoint_seq: csvSeq,
    appliance_version: (deployment as { version?: unknown })?.version ?? null,
  };
}

/** FILE.checkpoint.json beside an export of the pack; the head it signed, or null when there is none. */
async function writeStatement(
  dir: string,
  file: string,
  headers: { statement: string | null; checkpoint: string | null },
): Promise<number | null> {
  const s = statementFileOf(headers);
  if (s.text === null) return null;
  await writeFile(join(dir, `${file}.checkpoint.json`), s.text, { mode: 0o600 });
  return s.seq;
}

/** The appliance's checkpoint keys; none from an appliance without the audit chain (no such route). */
async function publicKeys(a: PackSource): Promise<unknown> {
  try {
    return ((await a.json('listAuditCheckpoints', { limit: 1 })) as { public_keys?: unknown }).public_keys ?? [];
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return [];
    throw err;
  }
}

/** Every item of a paged list. */
async function allPages(a: PackSource, route: string): Promise<unknown[]> {
  const out: unknown[] = [];
  let after: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const body = (await a.json(route, { limit: 500, after })) as { data?: unknown[]; next_cursor?: unknown };
    out.push(...(body.data ?? []));
    if (typeof body.next_cursor !== 'string') break;
    after = body.next_cursor;
  }
  return out;
}

const writeJson = (dir: string, name: string, value: unknown) =>
  writeFile(join(dir, name), `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });

async function writeManifest(dir: string, facts: PackFacts): Promise<void> {
  const files = [];
  for (const name of readdirSync(dir).sort()) {
    const hash = createHash('sha256');
    for await (const chunk of createReadStream(join(dir, name))) hash.update(chunk as Buffer);
    files.push({ name, sha256: hash.digest('hex'), bytes: (await stat(join(dir, name))).size });
  }
  await writeJson(dir, 'manifest.json', {
    pack: 'appliance-admin evidence pack v1',
    made_at: facts.madeAt,
    made_by: facts.made_by,
    appliance: { url: facts.url, version: facts.appliance_version },
    tool: { name: 'appliance-admin', version: VERSION },
    filters: { since: facts.since, until: facts.madeAt },
    audit: { entries: facts.audit_entries, checkpoint_seq: facts.checkpoint_seq },
    files,
  });
}
