import type { AuditCheckpoint, AuditCosignatureRequest } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { badRequest, conflict, unprocessable } from '../errors.js';
import type { HandlerResult } from '../http/route-kit.js';
import { iso } from '../ids.js';
import {
  COSIGNATURE_V1,
  cosignedBy,
  noteKeyId,
  parseCheckpointText,
  parseNote,
  parseVerifierKey,
} from '../../audit-chain/note.js';
import { CHECKPOINT_COLUMNS, servedCheckpoint, type CheckpointRow } from './checkpoint-note.js';

/**
 * Witnesses' cosignatures kept per checkpoint. A verifier takes a note of at least 16 signatures
 * (c2sp.org/signed-note) and this project's refuses one of more than 100 unread: without a bound,
 * anyone allowed to post (an auditor's token) could add cosignatures under made-up witness keys
 * until no verifier would read the checkpoint at all.
 */
const MAX_COSIGNATURES = 15;

/**
 * `POST /audit/checkpoints/cosignatures` (docs/audit-chain.md, "Cosignatures"): a witness hands the
 * appliance its cosignature of one of the appliance's checkpoint notes. The note's text must be one
 * the appliance signed, word for word, and the cosignature must verify with the witness's key; then
 * it is kept (one per witness name and key ID and checkpoint: a newer one replaces an older) and
 * served in the checkpoint's note from then on. Anything else is refused, and nothing is stored.
 */
export function addCosignature(db: Db, body: AuditCosignatureRequest, witnesses?: readonly string[]): HandlerResult {
  const note = parseNote(body.note);
  if (typeof note === 'string')
    throw badRequest(`note is not a signed note: ${note}`, [{ name: 'note', reason: note }]);
  const witness = parseVerifierKey(body.witness_key);
  if (typeof witness === 'string')
    throw badRequest(`witness_key ${witness}`, [{ name: 'witness_key', reason: witness }]);
  if (witness.type !== COSIGNATURE_V1) {
    const reason = 'is not a cosignature/v1 verifier key (type 0x04)';
    throw badRequest(`witness_key ${reason}`, [{ name: 'witness_key', reason }]);
  }
  // the config's list, when there is one: its keys by value (name, type and key bytes), whatever the spacing
  if (witnesses && !witnesses.some((w) => w.trim() === body.witness_key.trim())) {
    const reason = `is not one of the ${witnesses.length} witnesses this appliance accepts (audit_witnesses in its config file)`;
    throw unprocessable(`witness_key ${reason}`, [{ name: 'witness_key', reason }]);
  }
  const text = parseCheckpointText(note.text);
  const row =
    typeof text === 'string'
      ? undefined
      : (
          db
            .prepare(`SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints WHERE tree_size = ? AND note IS NOT NULL`)
            .all(text.size) as CheckpointRow[]
        ).find((c) => c.note!.slice(0, c.note!.lastIndexOf('\n\n') + 1) === note.text);
  if (!row) {
    const reason = 'its text is not a checkpoint note this appliance signed';
    throw unprocessable(`note ${reason}`, [{ name: 'note', reason }]);
  }
  const cosigned = cosignedBy(note, witness.name, witness.key);
  if (typeof cosigned === 'string') {
    const reason =
      cosigned === 'missing'
        ? `it holds no cosignature by ${witness.name} with that key`
        : `the cosignature by ${witness.name} does not verify with that key`;
    throw unprocessable(`note: ${reason}`, [{ name: 'note', reason }]);
  }
  // the witness's line with the time cosignedBy verified (a note may carry more than one of its lines)
  const id = noteKeyId(witness.name, COSIGNATURE_V1, witness.key);
  const others = db
    .prepare('SELECT COUNT(*) FROM audit_cosignatures WHERE checkpoint_id = ? AND NOT (name = ? AND key_id = ?)')
    .pluck()
    .get(row.id, witness.name, id.toString('hex')) as number;
  if (others >= MAX_COSIGNATURES)
    throw conflict(
      `checkpoint ${row.tree_size} already holds ${MAX_COSIGNATURES} witnesses' cosignatures, the most a note carries here; cosign a newer checkpoint`,
    );
  const line = note.signatures.find(
    (s) => s.name === witness.name && s.keyId.equals(id) && Number(s.bytes.readBigUInt64BE(0)) === cosigned.time,
  )!;
  db.prepare(
    `INSERT INTO audit_cosignatures (checkpoint_id, name, key_id, time, signature, received_at)
     VALUES (@id, @name, @key_id, @time, @signature, @received_at)
     ON CONFLICT (checkpoint_id, name, key_id) DO UPDATE SET time = excluded.time, signature = excluded.signature,
       received_at = excluded.received_at WHERE excluded.time > audit_cosignatures.time`,
  ).run({
    id: row.id,
    name: witness.name,
    key_id: id.toString('hex'),
    time: cosigned.time,
    signature: Buffer.concat([line.keyId, line.bytes]).toString('base64'),
    received_at: iso(),
  });
  const checkpoint: AuditCheckpoint = servedCheckpoint(db, row);
  return {
    status: 201,
    body: checkpoint,
    target: { type: 'audit_checkpoint', id: String(row.tree_size) },
    details: { witness: witness.name, key_id: id.toString('hex'), time: cosigned.time },
  };
}
