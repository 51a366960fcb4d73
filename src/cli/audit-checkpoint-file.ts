import { writeFile } from 'node:fs/promises';
import { statementFileOf } from '../audit-chain/statement-file.js';
import type { DownloadResult } from '../client/download.js';
import { thousands } from '../text/thousands.js';

/**
 * Beside an audit export FILE, FILE.checkpoint.json: the appliance's signed statement of what the
 * file holds (docs/audit-chain.md), for `audit verify` to check the file against. Returns the line
 * to print: where it went, or why there is none.
 */
export async function writeCheckpointFile(dest: string, result: DownloadResult): Promise<string> {
  const s = statementFileOf(result.auditChain);
  if (s.text === null) return `  checkpoint none: ${s.why}`;
  const file = `${dest}.checkpoint.json`;
  await writeFile(file, s.text, { mode: 0o600 });
  return `  checkpoint ${file} (signed statement, head #${thousands(s.seq)}${s.filtered ? ', filtered export' : ''})`;
}
