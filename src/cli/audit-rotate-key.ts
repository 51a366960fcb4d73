import { parseArgs } from 'node:util';
import { DB_FILE, openDatabase } from '../server/db/open.js';
import { holdsFile } from '../server/db/data-dir.js';
import { rotateSigningKey } from '../server/audit-chain/keys.js';
import { auditKeyChange } from '../server/audit-chain/start.js';
import { checkpointAfterRotation } from '../server/audit-chain/checkpoints.js';
import { ChainRefused } from '../server/audit-chain/extends.js';
import { displayFingerprint } from '../text/fingerprint.js';
import { hostActor } from './token.js';
import { UsageError } from '../config/usage-error.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const AUDIT_ROTATE_USAGE = helpText(commandAt(['audit', 'rotate-key']));

/** `appliance-admin audit rotate-key`: a host command, like `token issue`. */
export async function auditRotateKeyCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === '--help' || sub === '-h' || rest.includes('--help') || rest.includes('-h')) {
    console.log(AUDIT_ROTATE_USAGE);
    return 0;
  }
  if (sub !== 'rotate-key') throw new UsageError(AUDIT_ROTATE_USAGE);
  const { values } = parseArgs({ args: rest, options: { data: { type: 'string' } }, strict: true });
  if (!values.data) throw new UsageError(`--data DIR is required\n${AUDIT_ROTATE_USAGE}`);
  if (!holdsFile(values.data, DB_FILE))
    throw new UsageError(`${values.data} holds no appliance database (${DB_FILE}); check --data`);
  const db = openDatabase(values.data);
  try {
    const { subject } = hostActor();
    let change;
    try {
      change = rotateSigningKey(db, values.data, (c) => {
        auditKeyChange(db, c, subject, 'rotated on the host');
        checkpointAfterRotation(db, values.data!, c.key);
      });
    } catch (err) {
      // the appliance's own refusal (docs/operations.md, "The audit chain is refused"): said in one line
      if (err instanceof ChainRefused)
        err.message = `the key was not rotated: the audit trail does not extend the last checkpoint signed: ${err.message}`;
      throw err;
    }
    // the new checkpoint is kept beside the key once its transaction committed (a microtask): let it run
    await Promise.resolve();
    const before = change.replaced ? displayFingerprint(change.replaced) : 'none';
    console.log(`audit signing key rotated: ${displayFingerprint(change.key.fingerprint)} (was ${before})`);
    return 0;
  } finally {
    db.close();
  }
}
