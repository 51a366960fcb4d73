import type { Db } from '../db/sqlite-driver.js';
import { recordAudit } from '../audit.js';
import { newId } from '../ids.js';
import { attachSigner, checkpointIfNoNote, checkpointIfStale } from './checkpoints.js';
import { loadSigningKey, type KeyChange } from './keys.js';

/** How often the server looks whether a checkpoint is CHECKPOINT_EVERY_MS old. */
const STALE_CHECK_MS = 60_000;

/** Audits a change of signing key by `subject` (the host user, or `system` when the server found one at start). */
export function auditKeyChange(db: Db, change: KeyChange, subject: string, reason: string): void {
  recordAudit(db, {
    actor: { subject, role: null },
    action: 'audit.key.rotate',
    target: { type: 'audit_key', id: change.key.fingerprint },
    outcome: 'success',
    status: 200,
    request_id: newId('req'),
    source_ip: null,
    details: { retired_fingerprint: change.replaced, reason },
  });
}

/**
 * At server start: the signing key (made at first start), checkpoints from now on, and a timer
 * for the ten-minute rule. A key file that vanished or was swapped while the database had another
 * key is audited as a rotation, so that the trail says when its signatures changed hands.
 * Returns the timer's stop.
 */
export function startAuditChain(db: Db, dataDir: string): () => void {
  const change = loadSigningKey(db, dataDir);
  attachSigner(db, dataDir, change.key);
  if (change.replaced) auditKeyChange(db, change, 'system', 'the key file did not hold the current key');
  checkpointIfNoNote(db);
  const timer = setInterval(() => checkpointIfStale(db), STALE_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
