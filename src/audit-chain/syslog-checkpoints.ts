/**
 * The signed checkpoints a syslog copy carries (docs/audit-chain.md, "A syslog copy"): the appliance
 * forwards each one it signs, as a message of MSGID `checkpoint` whose MSG is the checkpoint as
 * served, in order with the entries. A verifier of the copy reads them first, keeps those whose
 * signature verifies with a trusted key, and proves the copy with the newest of them, so that no
 * checkpoint has to be brought from elsewhere. The older ones must each match their entry.
 */
import { thousands } from '../text/thousands.js';
import { asCheckpoint, checkpointSignatureValid, type Checkpoint } from './checkpoint.js';
import { byteLines, TOO_LONG } from './read-trail.js';
import { APP_NAME, CHECKPOINT_MSG_ID, parseSyslogLine } from './syslog-copy.js';
import { asTreeCheckpoint, verifyTreeCheckpoint } from './tree-checkpoint.js';
import type { Trust } from './verify-trail.js';

const n = thousands;
/** Findings listed at most (as verify-trail.ts lists them): a hostile copy must not grow the report with its size. */
const MAX_LISTED = 100;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export interface CopyCheckpoints {
  /** the newest checkpoint that verifies with a trusted key (without keys, the newest by seq, to be checked) */
  newest: Checkpoint | null;
  /** every one that verified, one per seq: each must be the copy's entry of its seq */
  signed: Checkpoint[];
  /** the checkpoint messages the copy holds */
  count: number;
  /** those signed by a key not trusted (another key's, or a retired one not pinned): not used */
  untrusted: number;
  /** a checkpoint message that does not verify, or two signed checkpoints of one seq that disagree */
  findings: string[];
}

/** Reads a copy's checkpoint messages (the copy's bytes, as they come) and checks each with `trust`. */
export async function checkpointsOfCopy(
  chunks: AsyncIterable<Buffer | string>,
  trust: Trust,
): Promise<CopyCheckpoints> {
  const out: CopyCheckpoints = { newest: null, signed: [], count: 0, untrusted: 0, findings: [] };
  const bySeq = new Map<number, Checkpoint>();
  let unverified: Checkpoint | null = null;
  let line = 0;
  let unlisted = 0;
  const finding = (text: string) => {
    if (out.findings.length < MAX_LISTED) out.findings.push(text);
    else unlisted++;
  };
  for await (const batch of byteLines(chunks)) {
    for (const l of batch) {
      line++;
      if (l === TOO_LONG) continue;
      const bytes = l.length && l[l.length - 1] === 13 ? l.subarray(0, -1) : l;
      const m = parseSyslogLine(bytes);
      if (!m || m.appName !== APP_NAME || m.msgId !== CHECKPOINT_MSG_ID) continue;
      out.count++;
      const c = checkpointOf(m.msg);
      if (typeof c === 'string') {
        finding(`line ${n(line)}: a checkpoint message that is not one (${c})`);
        continue;
      }
      const key = trust.keys.get(c.key_fingerprint);
      if (!key) {
        out.untrusted++;
        if (!unverified || c.seq > unverified.seq) unverified = c;
        continue;
      }
      const tree = asTreeCheckpoint(c);
      // with its note when it has one: the note signs the same head, and must verify too
      const valid =
        typeof tree === 'string' ? checkpointSignatureValid(c, key) : verifyTreeCheckpoint(tree, trust).ok === true;
      if (!valid) {
        finding(
          `line ${n(line)}: the checkpoint #${n(c.seq)} of ${c.at} does not verify with ${trust.source}: ` +
            'it was changed in the copy',
        );
        continue;
      }
      const before = bySeq.get(c.seq);
      if (before && before.hash !== c.hash)
        finding(
          `line ${n(line)}: two checkpoints signed for entry #${n(c.seq)} with different hashes (${before.at}, ` +
            `${c.at}): the appliance signed two histories`,
        );
      else if (!before) bySeq.set(c.seq, c);
    }
  }
  if (unlisted) out.findings.push(`${n(unlisted)} more checkpoint findings like these, not listed`);
  out.signed = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
  out.newest = out.signed.at(-1) ?? (trust.keys.size === 0 ? unverified : null);
  return out;
}

/** The checkpoint a message holds (its JSON, as served; the tree fields kept for the note), or why not. */
function checkpointOf(msg: Buffer): Checkpoint | string {
  let v: unknown;
  try {
    v = JSON.parse(utf8.decode(msg));
  } catch {
    return 'not JSON text';
  }
  const c = asCheckpoint(v);
  if (typeof c === 'string') return c;
  const tree = asTreeCheckpoint(v);
  return typeof tree === 'string' ? c : tree;
}
