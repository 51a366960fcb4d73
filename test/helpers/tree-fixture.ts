import { inclusionProof, leafHash, MemoryTree } from '../../src/audit-chain/merkle.js';
import { checkpointText, formatNote, signNote } from '../../src/audit-chain/note.js';
import { PROOF_FORMAT, type ProofFile, type SampleStatement } from '../../src/audit-chain/proof-file.js';
import type { TreeCheckpoint } from '../../src/audit-chain/tree-checkpoint.js';
import { checkpointOf, type Entry, type SigningKey } from './audit-chain.js';

/**
 * Checkpoints with their tree and signed note, and proof files, made as the plan of issue 40 says the
 * appliance makes them (docs/audit-chain.md, "The checkpoint note"), from the project's pure Merkle
 * and note modules: fixtures for the offline verifiers, before and besides the real server.
 */
const ORIGIN = 'appliance-admin/0123456789abcdef';

export function treeOf(entries: Entry[]): MemoryTree {
  const tree = new MemoryTree();
  for (const e of entries) tree.append(leafHash(e.hash));
  return tree;
}

/** The signed checkpoint of the first `size` entries of `entries`, its note signed by `key` as `origin`. */
export function treeCheckpoint(
  entries: Entry[],
  size: number,
  key: SigningKey,
  o: { origin?: string; at?: string; tree?: MemoryTree } = {},
): TreeCheckpoint {
  const origin = o.origin ?? ORIGIN;
  const head = entries[size - 1]!;
  const at = o.at ?? new Date(Date.UTC(2026, 10, 20) + size * 1000).toISOString();
  const c = checkpointOf(head, key, at);
  const root = (o.tree ?? treeOf(entries)).root(size);
  const text = checkpointText({ origin, size, root, extensions: [`chain-head ${head.seq} ${head.hash} ${at}`] });
  const note = formatNote({ text, signatures: [signNote(text, origin, key.privateKey)] });
  return { ...c, origin, tree_size: size, root_hash: root.toString('hex'), note };
}

/** A proof file of the entries at `leaves` (0-based) against `checkpoint`. */
export function proofFileOf(
  entries: Entry[],
  checkpoint: TreeCheckpoint,
  leaves: number[],
  sample: SampleStatement | null = null,
): ProofFile {
  const tree = treeOf(entries);
  return {
    format: PROOF_FORMAT,
    checkpoint,
    sample,
    entries: leaves.map((i) => ({
      entry: entries[i]!,
      leaf_index: i,
      path: inclusionProof(tree.nodes, i, checkpoint.tree_size).map((b) => b.toString('hex')),
    })),
  };
}
