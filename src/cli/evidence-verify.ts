import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { verifyPack } from '../audit-chain/evidence-verify.js';
import { EXIT_STATUS, VERDICT_WORDS } from '../audit-chain/verdict.js';
import { thousands } from '../text/thousands.js';
import { pinnedTrust } from './pinned-trust.js';
import { printErr, printOut } from './print.js';
import { UsageError } from '../config/usage-error.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

const USAGE = helpText(commandAt(['evidence', 'verify']));

/** `evidence verify DIR [--key PEM_FILE]`: the pack's seal, its files, then the audit chain of both exports. */
export async function evidenceVerifyCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { key: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError(USAGE);
  const dir = positionals[0];
  let isFolder = false;
  try {
    isFolder = statSync(dir).isDirectory();
  } catch {
    /* said below */
  }
  if (!isFolder) throw new UsageError(`${dir} is not a folder: give the evidence pack's folder\n${USAGE}`);
  const pinned = values.key === undefined ? undefined : pinnedTrust(values.key);
  const r = await verifyPack(dir, { pinned });
  for (const f of r.findings) printOut(f);
  for (const u of r.unknowns) printOut(`could not check: ${u}`);
  if (r.verdict === 'verified' || r.verdict === 'verified-unpinned')
    printOut(`evidence pack ${dir}: the seal verifies, every file matches its manifest and the audit chain verifies`);
  for (const n of r.notes) printOut(n);
  if (r.verdict === 'verified-unpinned')
    printOut(
      "the key was not pinned: the pack's own public-keys.json was used; compare its fingerprint with the one the " +
        'appliance shows (audit fingerprint KEY.pem), then give --key KEY.pem',
    );
  if (r.verdict !== 'verified') {
    const counted = r.findings.length
      ? ` (${thousands(r.findings.length)} finding${r.findings.length === 1 ? '' : 's'})`
      : r.unknowns.length
        ? ` (${thousands(r.unknowns.length)} thing${r.unknowns.length === 1 ? '' : 's'} could not be checked)`
        : '';
    printErr(`appliance-admin: evidence verify: ${VERDICT_WORDS[r.verdict]}${counted}`);
  }
  return EXIT_STATUS[r.verdict];
}
