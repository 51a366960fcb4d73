import { writeStatementFile } from '../audit-chain/statement-file.js';
import type { DownloadResult } from '../client/download.js';
import { thousands } from '../text/thousands.js';

/**
 * Beside an audit export FILE, FILE.checkpoint.json: the appliance's signed statement of what the
 * file holds (docs/audit-chain.md), for `audit verify` to check the file against. Returns the line
 * to print: where it went, or why there is none.
 */
export async function writeCheckpointFile(dest: string, result: DownloadResult): Promise<string> {
  const s = await writeStatementFile(dest, result.auditChain);
  if (s.file === null) return `  checkpoint none: ${s.why}`;
  return `  checkpoint ${s.file} (signed statement, head #${thousands(s.seq)}${s.filtered ? ', filtered export' : ''})`;
}
