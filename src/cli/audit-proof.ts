import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  PROOF_FILE_MAX_BYTES,
  PROOF_FORMAT,
  parseProofFile,
  proofFileText,
  verifyProofFile,
  type ProofFile,
  type ProofReport,
  type ProvenEntry,
} from '../audit-chain/proof-file.js';
import { MAX_SAMPLE, sampleLeaves } from '../audit-chain/sample.js';
import type { SignedTree } from '../audit-chain/tree-checkpoint.js';
import { EXIT_STATUS, VERDICT_WORDS, type Verdict } from '../audit-chain/verdict.js';
import type { Trust } from '../audit-chain/verify-trail.js';
import type { WitnessKey } from '../audit-chain/witness-check.js';
import { ApiError, TransportError } from '../client/errors.js';
import { UsageError } from '../config/usage-error.js';
import { sanitize } from '../text/sanitize.js';
import { thousands } from '../text/thousands.js';
import { parseTimeInput } from '../text/time-input.js';
import { ApplianceStream } from './appliance-stream.js';
import { ApplianceTree, TreeRefusal } from './appliance-tree.js';
import { pinnedTrust } from './pinned-trust.js';
import { CheckpointState } from './checkpoint-state.js';
import { reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { printErr, printOut } from './print.js';
import { checkRemembered, type RememberedResult } from './remembered-check.js';
import { readWitnessFile } from './witness-key-file.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

/** a subcommand's help page, which its mistakes are said with */
const usage = (sub: string) => helpText(commandAt(['audit', sub]));

export async function auditProofCommand(sub: string, argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      key: { type: 'string' },
      witness: { type: 'string', multiple: true },
      since: { type: 'string' },
      seed: { type: 'string' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(usage(sub));
    return 0;
  }
  const pinned = values.key === undefined ? undefined : pinnedTrust(values.key);
  const witnesses = (values.witness ?? []).map(readWitnessFile);
  const state = new CheckpointState(env);
  if (sub === 'verify-proof') {
    if (positionals.length !== 1) throw new UsageError(`name one proof FILE\n${usage(sub)}`);
    return verifyProofCommand(positionals[0]!, { pinned, witnesses, state });
  }
  if (!values.output) throw new UsageError(`-o is required\n${usage(sub)}`);
  if (witnesses.length) throw new UsageError(`--witness is for verify-proof and audit verify\n${usage(sub)}`);
  let plan: Plan;
  if (sub === 'prove') {
    if (!positionals.length) throw new UsageError(`name the entries to prove (their seq)\n${usage(sub)}`);
    const seqs = positionals.map((p) => {
      if (!/^[1-9][0-9]{0,15}$/.test(p)) throw new UsageError(`${p} is not an entry number (seq)`);
      return Number(p);
    });
    if (seqs.length > MAX_SAMPLE) throw new UsageError(`at most ${thousands(MAX_SAMPLE)} entries a file`);
    if (lstatOrNull(values.output)) throw new UsageError(`${values.output} exists; choose another file`);
    plan = { kind: 'prove', seqs: [...new Set(seqs)].sort((a, b) => a - b), file: values.output };
  } else {
    if (positionals.length !== 1 || !/^[1-9][0-9]{0,4}$/.test(positionals[0]!) || Number(positionals[0]) > MAX_SAMPLE)
      throw new UsageError(`sample N: N is how many entries to draw (1 to ${thousands(MAX_SAMPLE)})\n${usage(sub)}`);
    if (!values.since) throw new UsageError(`--since WHEN is required (e.g. --since 90d)\n${usage(sub)}`);
    if (values.seed !== undefined && !/^([0-9a-f]{2}){16,64}$/.test(values.seed))
      throw new UsageError('--seed must be 32 to 128 lowercase hex digits');
    const dir = values.output;
    const st = lstatOrNull(dir);
    if (st && (!st.isDirectory() || readdirSync(dir).length))
      throw new UsageError(`${dir} exists and is not an empty folder; choose another`);
    plan = {
      kind: 'sample',
      size: Number(positionals[0]),
      since: sinceTime(values.since),
      seed: values.seed ?? randomBytes(32).toString('hex'),
      dir,
    };
  }
  const connection = resolveConnection(values, env, usage(sub));
  const appliance = new ApplianceStream(connection);
  try {
    return await proveOnline(new ApplianceTree(appliance), plan, { pinned, state });
  } catch (err) {
    if (err instanceof TreeRefusal) {
      printOut(err.verdict === 'cannot-check' ? `could not check: ${err.message}` : err.message);
      return finish(`audit ${sub}`, err.verdict);
    }
    if (err instanceof ApiError || err instanceof TransportError) {
      reportClientError(err, `audit ${sub}`, connection.credential);
      return EXIT_STATUS['cannot-check'];
    }
    throw err;
  } finally {
    await appliance.close();
  }
}

type Plan =
  | { kind: 'prove'; seqs: number[]; file: string }
  | { kind: 'sample'; size: number; since: string; seed: string; dir: string };

const n = thousands;

async function proveOnline(
  tree: ApplianceTree,
  plan: Plan,
  o: { pinned?: Trust; state: CheckpointState },
): Promise<number> {
  const what = `audit ${plan.kind}`;
  const { tree: newest, trust } = await tree.newest(o.pinned);
  const remembered = await checkRemembered(o.state, newest, trust, tree.consistency);
  if (remembered.findings.length) return printRemembered(what, remembered, 'broken');
  let entries: ProvenEntry[];
  let sample: ProofFile['sample'] = null;
  let population = 0;
  if (plan.kind === 'prove') {
    const unsigned = plan.seqs.find((seq) => seq > newest.checkpoint.seq);
    if (unsigned !== undefined)
      throw new TreeRefusal(
        `entry #${n(unsigned)} is not signed yet: the newest checkpoint is #${n(newest.checkpoint.seq)} (it signs ` +
          'its head at least every 10 minutes); prove it later',
        'cannot-check',
      );
    entries = await inBatches(plan.seqs, async (seq) => {
      const one = await provenEntry(tree, newest, seq);
      if (!one) throw new TreeRefusal(`the appliance holds no entry #${n(seq)}`, 'cannot-check');
      return one;
    });
  } else {
    const before = await tree.lastBefore(plan.since);
    let first = 0;
    if (before && (before.seq as number) >= newest.checkpoint.seq) first = newest.size;
    else if (before) {
      const p = await tree.inclusion(before.seq as number, newest.size);
      if (!p)
        throw new TreeRefusal(`the appliance gives no proof of entry #${n(before.seq as number)}`, 'cannot-check');
      first = p.leaf_index + 1;
    }
    population = newest.size - first;
    const size = Math.min(plan.size, population);
    const leaves = sampleLeaves(plan.seed, first, population, size);
    const offset = newest.checkpoint.seq - newest.size;
    entries = await inBatches(leaves, (leaf) => entryAtLeaf(tree, newest, leaf, offset));
    sample = { seed: plan.seed, since: plan.since, until: newest.checkpoint.at, population, size };
  }
  const proof: ProofFile = { format: PROOF_FORMAT, checkpoint: newest.checkpoint, sample, entries };
  // the file is checked as an auditor will check it before it is written: what is written verifies
  const report = verifyProofFile(proof, trust);
  if (report.verdict === 'broken') {
    for (const f of report.findings) printOut(f);
    return finish(what, 'broken', `${report.findings.length} findings; nothing written`);
  }
  const text = proofFileText(proof);
  if (plan.kind === 'prove') {
    writeFileSync(plan.file, text, { mode: 0o644, flag: 'wx' });
    printOut(
      `wrote ${plan.file}: ${n(entries.length)} entr${entries.length === 1 ? 'y' : 'ies'} with inclusion proofs`,
    );
  } else {
    mkdirSync(plan.dir, { recursive: true, mode: 0o755 });
    writeFileSync(join(plan.dir, 'sample.proof.json'), text, { mode: 0o644, flag: 'wx' });
    writeFileSync(join(plan.dir, 'sample.txt'), sampleText(proof, newest), { mode: 0o644, flag: 'wx' });
    printOut(
      `wrote ${join(plan.dir, 'sample.proof.json')}: ${n(entries.length)} of ${n(population)} entries written since ` +
        `${plan.since}, drawn from seed ${plan.seed}`,
    );
  }
  printOut(
    `  against checkpoint #${n(newest.checkpoint.seq)} of ${newest.checkpoint.at} (tree size ${n(newest.size)}, ` +
      `${newest.origin})`,
  );
  for (const note of remembered.notes) printOut(`  ${note}`);
  for (const u of remembered.unknowns) printOut(`could not check: ${u}`);
  const target = plan.kind === 'prove' ? plan.file : join(plan.dir, 'sample.proof.json');
  printOut(`  check it anywhere with: appliance-admin audit verify-proof ${target} --key KEY.pem`);
  const verdict: Verdict = remembered.unknowns.length ? 'cannot-check' : report.verdict;
  if (report.verdict === 'verified-unpinned')
    printOut('the key was not pinned: the proofs verify with the keys the appliance serves; pin its key with --key');
  return finish(what, verdict);
}

/** How many entries are asked for at once: the appliance answers each in about a millisecond. */
const AT_ONCE = 16;

/** `fetch` of every item, AT_ONCE at a time, in the items' order. */
async function inBatches<T, R>(items: T[], fetch: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += AT_ONCE)
    out.push(...(await Promise.all(items.slice(i, i + AT_ONCE).map(fetch))));
  return out;
}

/** Entry `seq` with its inclusion proof in `tree`; null when the appliance holds no such entry. */
async function provenEntry(tree: ApplianceTree, newest: SignedTree, seq: number): Promise<ProvenEntry | null> {
  const [entry, proof] = await Promise.all([tree.entry(seq), tree.inclusion(seq, newest.size)]);
  if (!entry || !proof) return null;
  return { entry, leaf_index: proof.leaf_index, path: proof.path };
}

/**
 * The entry at leaf `leaf`: seq leaf + 1 + offset when every seq the trail skips lies before it
 * (offset: how many it skips in all, which a trail chained from its start never does), else found
 * by halving the seqs between, with each one's leaf index as the appliance proves it.
 */
async function entryAtLeaf(
  tree: ApplianceTree,
  newest: SignedTree,
  leaf: number,
  offset: number,
): Promise<ProvenEntry> {
  let lo = leaf + 1;
  let hi = leaf + 1 + offset;
  let probe = hi;
  let asked = 0;
  while (lo <= hi && asked < 200) {
    // the first seq from `probe` up that the appliance holds (a seq skipped before the chain has no entry)
    let seq = probe;
    let proof = null;
    for (; seq <= hi && asked < 200; seq++) {
      asked++;
      if ((proof = await tree.inclusion(seq, newest.size))) break;
    }
    if (!proof || proof.leaf_index > leaf) hi = probe - 1;
    else if (proof.leaf_index < leaf) lo = seq + 1;
    else {
      const entry = await tree.entry(seq);
      if (!entry) break;
      return { entry, leaf_index: leaf, path: proof.path };
    }
    probe = Math.floor((lo + hi) / 2);
  }
  throw new TreeRefusal(`the appliance gives no entry at leaf ${n(leaf)} of its tree`, 'cannot-check');
}

function sampleText(p: ProofFile, tree: SignedTree): string {
  const s = p.sample!;
  const line = (e: ProvenEntry) => {
    const x = e.entry as {
      seq?: unknown;
      at?: unknown;
      action?: unknown;
      outcome?: unknown;
      actor?: { subject?: unknown };
    };
    // the appliance's words, made safe for a terminal that shows the file (`cat sample.txt`)
    const safe = (v: unknown) => sanitize(String(v), 200);
    return `#${safe(x.seq)}  ${safe(x.at)}  ${safe(x.actor?.subject)}  ${safe(x.action)}  ${safe(x.outcome)}`;
  };
  return [
    `Audit sample of ${sanitize(tree.origin, 300)}`,
    `  ${s.size} of ${s.population} entries, written from ${s.since} to the checkpoint of ${s.until}`,
    `  seed ${s.seed} (docs/audit-chain.md, "Proof files", says how the seed draws them)`,
    `  checkpoint #${tree.checkpoint.seq}, tree size ${tree.size}, root ${tree.checkpoint.root_hash}`,
    `  key SHA-256 fingerprint ${tree.keyFingerprint}`,
    '',
    ...p.entries.map(line),
    '',
    'Check: appliance-admin audit verify-proof sample.proof.json --key KEY.pem',
    '',
  ].join('\n');
}

async function verifyProofCommand(
  file: string,
  o: { pinned?: Trust; witnesses: WitnessKey[]; state: CheckpointState },
): Promise<number> {
  const st = lstatOrNull(file);
  if (!st || !st.isFile()) {
    printOut(`could not check: ${st ? `${file} is not a regular file` : `cannot read ${file}`}`);
    return finish('audit verify-proof', 'cannot-check');
  }
  if (st.size > PROOF_FILE_MAX_BYTES) {
    printOut(`${file} is larger than ${n(PROOF_FILE_MAX_BYTES)} bytes: not a proof file`);
    return finish('audit verify-proof', 'broken');
  }
  const parsed = parseProofFile(readFileSync(file, 'utf8'));
  if (typeof parsed === 'string') {
    printOut(`${file} is unusable: ${parsed}`);
    return finish('audit verify-proof', 'broken');
  }
  const trust = o.pinned ?? { keys: new Map(), pinned: false, source: 'no key' };
  const report: ProofReport = verifyProofFile(parsed, trust, { witnesses: o.witnesses });
  const remembered =
    report.tree && report.verdict !== 'broken' ? await checkRemembered(o.state, report.tree, trust, null) : null;
  for (const f of [...report.findings, ...(remembered?.findings ?? [])]) printOut(f);
  for (const u of [...report.unknowns, ...(remembered?.unknowns ?? [])]) printOut(`could not check: ${u}`);
  const verdict: Verdict = remembered?.findings.length
    ? 'broken'
    : remembered?.unknowns.length
      ? 'cannot-check'
      : report.verdict;
  if (verdict === report.verdict && report.proven) printOut(`${VERDICT_WORDS[verdict]}: ${report.proven}`);
  for (const note of [...report.notes, ...(remembered?.notes ?? [])]) printOut(note);
  for (const w of o.witnesses)
    if (verdict === 'verified' || verdict === 'verified-unpinned') printOut(`cosigned by witness ${w.name}`);
  return finish('audit verify-proof', verdict, report.findings.length ? `${report.findings.length} findings` : '');
}

function printRemembered(what: string, r: RememberedResult, verdict: Verdict): number {
  for (const f of r.findings) printOut(f);
  for (const u of r.unknowns) printOut(`could not check: ${u}`);
  printOut('nothing was written');
  return finish(what, verdict, r.forks.length ? 'a fork' : '');
}

function sinceTime(text: string): string {
  const when = parseTimeInput(text);
  if (when === null)
    throw new UsageError(`--since must be a duration like 90d or 12h, or an RFC 3339 time, got ${sanitize(text, 60)}`);
  return when;
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function finish(what: string, verdict: Verdict, detail = ''): number {
  if (verdict !== 'verified')
    printErr(`appliance-admin: ${what}: ${VERDICT_WORDS[verdict]}${detail ? ` (${detail})` : ''}`);
  return EXIT_STATUS[verdict];
}
