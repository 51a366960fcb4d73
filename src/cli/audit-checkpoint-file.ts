import { writeFile } from 'node:fs/promises';
import { AuditCheckpoint } from '../contract/index.js';
import type { DownloadResult } from '../client/download.js';

/**
 * Beside an audit export FILE, FILE.checkpoint.json: the signed checkpoint the file ends at, whether
 * a filter narrowed it and which (docs/audit-chain.md), for `audit verify` to check the file
 * against. Returns the line to print: where it went, or why there is none.
 */
export async function writeCheckpointFile(
  dest: string,
  result: DownloadResult,
  query: Record<string, unknown>,
): Promise<string> {
  const { checkpoint, filtered } = result.auditChain;
  let parsed: AuditCheckpoint | undefined;
  try {
    parsed = AuditCheckpoint.parse(JSON.parse(checkpoint ?? ''));
  } catch {
    return '  checkpoint none: the appliance sent no valid signed checkpoint, so the file cannot be verified';
  }
  const { format: _, ...filters } = query;
  const file = `${dest}.checkpoint.json`;
  const body = { checkpoint: parsed, filtered: filtered === 'true', filters };
  await writeFile(file, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
  return `  checkpoint ${file} (entry #${parsed.seq}${body.filtered ? ', filtered export' : ''})`;
}
