import { displayFingerprint } from '../text/fingerprint.js';
import { thousands } from '../text/thousands.js';
import { asCheckpoint, checkpointSignatureValid, HEX64, type Checkpoint } from './checkpoint.js';
import { isKeyName, noteSignedBy, parseCheckpointText, parseNote, type Note } from './note.js';
import type { Trust } from './verify-trail.js';

/**
 * A checkpoint with its tree (docs/audit-chain.md, "The checkpoint note"): the JSON checkpoint as
 * served, with the tree's origin, size and root and the signed note that carries them (and the
 * witnesses' cosignatures). Every reader of a proof file, a remembered checkpoint or a witness's
 * state goes through verifyTreeCheckpoint before it believes a number in it.
 */
export interface TreeCheckpoint extends Checkpoint {
  origin: string;
  tree_size: number;
  root_hash: string;
  note: string;
}

/** A tree checkpoint whose note verified with a trusted key: what the numbers mean, as signed. */
export interface SignedTree {
  checkpoint: TreeCheckpoint;
  origin: string;
  size: number;
  root: Buffer;
  note: Note;
  keyFingerprint: string;
}

/** A tree checkpoint read from outside (shape only, nothing verified), or what is wrong with it. */
export function asTreeCheckpoint(v: unknown): TreeCheckpoint | string {
  const c = asCheckpoint(v);
  if (typeof c === 'string') return c;
  const t = v as Record<string, unknown>;
  // null: signed before the tree; absent: an appliance from before the tree
  if (t.note == null || t.tree_size == null)
    return 'it was signed before the appliance kept a tree (no tree size, root or note)';
  if (typeof t.origin !== 'string' || !isKeyName(t.origin)) return 'its origin is not a log name';
  if (!Number.isSafeInteger(t.tree_size) || (t.tree_size as number) < 1)
    return 'its tree_size is not a whole number >= 1';
  if (typeof t.root_hash !== 'string' || !HEX64.test(t.root_hash))
    return 'its root_hash is not 64 lowercase hex digits';
  if (typeof t.note !== 'string') return 'it carries no signed note';
  return { ...c, origin: t.origin, tree_size: t.tree_size as number, root_hash: t.root_hash, note: t.note };
}

export type TreeCheck =
  { ok: true; tree: SignedTree } | { ok: false; finding: string } | { ok: false; unknown: string };

/**
 * Whether the checkpoint's note is signed, with the origin as the key's name, by the trusted key
 * its JSON names, and says what the JSON says: origin, tree size, root, and the `chain-head` line
 * of the JSON's seq, hash and time. The JSON's own signature must verify with that key too.
 */
export function verifyTreeCheckpoint(c: TreeCheckpoint, trust: Trust, what = 'the checkpoint'): TreeCheck {
  const label = `${what} #${thousands(c.seq)}`;
  const key = trust.keys.get(c.key_fingerprint);
  if (!key) {
    if (trust.keys.size === 0) return { ok: false, unknown: `no public key to check ${label} with: give --key` };
    return {
      ok: false,
      finding:
        `${label} is signed by key ${displayFingerprint(c.key_fingerprint)}, not ${trust.source} ` +
        `(${[...trust.keys.keys()].map(displayFingerprint).join(', ')})`,
    };
  }
  const bad = (why: string): TreeCheck => ({ ok: false, finding: `${label}: ${why}` });
  if (!checkpointSignatureValid(c, key))
    return bad(`its signature does not verify with key ${displayFingerprint(c.key_fingerprint)}`);
  const note = parseNote(c.note);
  if (typeof note === 'string') return bad(`its note is unusable: ${note}`);
  const signed = noteSignedBy(note, c.origin, key);
  if (signed !== 'valid')
    return bad(
      signed === 'missing'
        ? `its note carries no signature of ${c.origin} by key ${displayFingerprint(c.key_fingerprint)}`
        : `its note's signature does not verify: the note was changed after signing`,
    );
  const body = parseCheckpointText(note.text);
  if (typeof body === 'string') return bad(`its note is not a checkpoint: ${body}`);
  if (body.origin !== c.origin) return bad('its note is for another log (origin) than it says');
  if (body.size !== c.tree_size || body.root.toString('hex') !== c.root_hash)
    return bad('its note signs another tree size or root than it says');
  const head = `chain-head ${c.seq} ${c.hash} ${c.at}`;
  if (!body.extensions.includes(head)) return bad('its note signs another chain head (seq, hash, time) than it says');
  if (c.tree_size < 1) return bad('its tree is empty');
  return {
    ok: true,
    tree: {
      checkpoint: c,
      origin: c.origin,
      size: c.tree_size,
      root: body.root,
      note,
      keyFingerprint: c.key_fingerprint,
    },
  };
}
