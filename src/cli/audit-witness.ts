import { lstatSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { COSIGNATURE_V1, cosignedBy, formatVerifierKey, noteKeyId, parseNote } from '../audit-chain/note.js';
import { asTreeCheckpoint } from '../audit-chain/tree-checkpoint.js';
import { forkEvidence, forkFinding, proofNeeded } from '../audit-chain/tree-consistency.js';
import { EXIT_STATUS, VERDICT_WORDS, type Verdict } from '../audit-chain/verdict.js';
import {
  cosignedNote,
  newWitnessKey,
  readWitnessSigner,
  witnessDecision,
  type WitnessSigner,
} from '../audit-chain/witness.js';
import { ApiError, TransportError } from '../client/errors.js';
import { UsageError } from '../config/usage-error.js';
import { thousands } from '../text/thousands.js';
import { ApplianceStream } from './appliance-stream.js';
import { ApplianceTree, TreeRefusal } from './appliance-tree.js';
import { pinnedTrust } from './pinned-trust.js';
import { CheckpointState, readRememberedFile } from './checkpoint-state.js';
import { reportClientError } from './client-errors.js';
import { CONNECTION_OPTIONS, resolveConnection } from './connection.js';
import { printErr, printOut } from './print.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

/** a subcommand's help page, which its mistakes are said with */
const usage = (sub: string) => helpText(commandAt(['audit', sub]));

export async function auditWitnessCommand(sub: string, argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      ...CONNECTION_OPTIONS,
      key: { type: 'string' },
      'witness-key': { type: 'string' },
      name: { type: 'string' },
      output: { type: 'string', short: 'o' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
    strict: true,
  });
  if (values.help || positionals.length) {
    console.log(usage(sub));
    return values.help ? 0 : 2;
  }
  if (sub === 'witness-key') return makeWitnessKey(values.name, values.output);
  if (!values.key)
    throw new UsageError(`--key is required: a witness checks the appliance's pinned key\n${usage(sub)}`);
  if (!values['witness-key']) throw new UsageError(`--witness-key FILE is required\n${usage(sub)}`);
  const trust = pinnedTrust(values.key);
  const signer = readSignerFile(values['witness-key']);
  const connection = resolveConnection(values, env, usage(sub));
  const appliance = new ApplianceStream(connection);
  try {
    return await witness(new ApplianceTree(appliance), trust, signer, new CheckpointState(env));
  } catch (err) {
    if (err instanceof TreeRefusal) {
      printOut(err.verdict === 'cannot-check' ? `could not check: ${err.message}` : err.message);
      return finish(err.verdict, 'nothing cosigned');
    }
    if (err instanceof ApiError || err instanceof TransportError) {
      reportClientError(err, 'audit witness', connection.credential);
      return EXIT_STATUS['cannot-check'];
    }
    throw err;
  } finally {
    await appliance.close();
  }
}

const n = thousands;

async function witness(
  tree: ApplianceTree,
  trust: ReturnType<typeof pinnedTrust>,
  signer: WitnessSigner,
  state: CheckpointState,
): Promise<number> {
  const { tree: newest } = await tree.newest(trust);
  const keyId = noteKeyId(signer.name, COSIGNATURE_V1, signer.publicKey).toString('hex');
  const file = state.witnessFile(keyId, newest.origin);
  const read = readRememberedFile(file, trust);
  if (read && 'unusable' in read)
    throw new TreeRefusal(`the witness's state ${file} is unusable: ${read.unusable}`, 'cannot-check');
  const last = read?.tree ?? null;
  // the state holds what this witness cosigned: a file without its own cosignature was not written by it
  if (last && typeof cosignedBy(last.note, signer.name, signer.publicKey) === 'string')
    throw new TreeRefusal(`the witness's state ${file} carries no cosignature of ${signer.name}`, 'cannot-check');
  const need = last ? proofNeeded(last, newest) : null;
  const proof = need ? await tree.consistency(need.from, need.to) : null;
  const decision = witnessDecision(last, newest, proof?.path ?? null);
  if (!decision.cosign) {
    if (decision.compared.kind === 'fork') {
      const foundAt = new Date().toISOString();
      const evidence = state.writeFork(
        forkEvidence(last!.checkpoint, newest.checkpoint, decision.why, {
          foundAt,
          source: `cosigned by witness ${signer.name}`,
          proof: need ? { ...need, path: proof?.served ?? [] } : null,
        }),
        foundAt,
      );
      printOut(
        forkFinding(
          decision.why,
          { what: 'the checkpoint this witness cosigned', tree: last! },
          { what: 'its newest', tree: newest },
          evidence,
        ),
      );
    } else printOut(`refused: ${decision.why}`);
    return finish('broken', 'nothing cosigned');
  }
  const time = Math.floor(Date.now() / 1000);
  const note = cosignedNote(newest, signer, time);
  const answer = await tree.cosign(note, formatVerifierKey(signer.name, COSIGNATURE_V1, signer.publicKey));
  const served = asTreeCheckpoint(answer);
  const servedNote = typeof served === 'string' ? null : parseNote(served.note);
  if (
    !servedNote ||
    typeof servedNote === 'string' ||
    typeof cosignedBy(servedNote, signer.name, signer.publicKey) === 'string'
  )
    throw new TreeRefusal('the appliance did not answer the checkpoint with this cosignature', 'cannot-check');
  state.rememberCosigned(file, { ...newest, checkpoint: { ...newest.checkpoint, note } });
  printOut(
    `cosigned checkpoint #${n(newest.checkpoint.seq)} of ${newest.checkpoint.at} (tree size ${n(newest.size)}, ` +
      `${newest.origin}) as witness ${signer.name}`,
  );
  printOut(
    last
      ? decision.compared?.kind === 'same'
        ? `  the same tree as the one it cosigned before (tree size ${n(last.size)})`
        : `  it extends the checkpoint cosigned before (tree size ${n(last.size)}): proven by a consistency proof of ` +
          `${n(proof!.path.length)} hashes`
      : '  the first checkpoint this witness cosigned for this appliance: later ones must extend it',
  );
  return 0;
}

function makeWitnessKey(name: string | undefined, output: string | undefined): number {
  if (!name || !output) throw new UsageError(`witness-key needs --name NAME and -o FILE\n${usage('witness-key')}`);
  let made;
  try {
    made = newWitnessKey(name);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  for (const f of [output, `${output}.pub`]) if (exists(f)) throw new UsageError(`${f} exists; choose another file`);
  writeFileSync(output, made.privateText, { mode: 0o600, flag: 'wx' });
  writeFileSync(`${output}.pub`, made.vkey, { mode: 0o644, flag: 'wx' });
  printOut(`wrote the witness key ${output} (private, keep it) and ${output}.pub:`);
  printOut(`  ${made.vkey.trim()}`);
  printOut(`verifiers require this witness with: appliance-admin audit verify --url URL --witness ${output}.pub`);
  return 0;
}

function readSignerFile(file: string): WitnessSigner {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    throw new UsageError(`cannot read the witness key ${file}`);
  }
  if (!st.isFile()) throw new UsageError(`the witness key ${file} is not a regular file`);
  if (st.size > 4096) throw new UsageError(`the witness key ${file} is larger than 4096 bytes`);
  if (st.mode & 0o077) throw new UsageError(`the witness key ${file} can be read by others (chmod 600 ${file})`);
  const s = readWitnessSigner(readFileSync(file, 'utf8'));
  if (typeof s === 'string') throw new UsageError(`the witness key ${file} is ${s}`);
  return s;
}

function exists(f: string): boolean {
  try {
    lstatSync(f);
    return true;
  } catch {
    return false;
  }
}

function finish(verdict: Verdict, detail: string): number {
  printErr(`appliance-admin: audit witness: ${VERDICT_WORDS[verdict]} (${detail})`);
  return EXIT_STATUS[verdict];
}
