import { statementWords, writeStatementFile } from '../audit-chain/statement-file.js';
import type { DownloadResult } from '../client/download.js';

/**
 * Beside an audit export FILE, FILE.checkpoint.json: the appliance's signed statement of what the
 * file holds (docs/audit-chain.md), for `audit verify` to check the file against. Returns the line
 * to print: where it went, or why there is none.
 */
export async function writeCheckpointFile(dest: string, result: DownloadResult): Promise<string> {
  return `  checkpoint ${statementWords(await writeStatementFile(dest, result.auditChain))}`;
}
