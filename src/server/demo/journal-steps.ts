import type { Db } from '../db/sqlite-driver.js';
import type { JournalEntry, JournalError } from '../../contract/index.js';
import { iso } from '../ids.js';

/**
 * Ends a running journal step. The journal writer only appends; a live run's step is written
 * `running` first and finished here, so a dashboard watching the journal sees it progress.
 */
export function journalFinisher(db: Db) {
  const update =
    db.prepare(`UPDATE journal SET status = ?, ended_at = ?, duration_ms = ?, input_tokens = ?, output_tokens = ?, error_code = ?, error_message = ?
    WHERE id = ? AND status = 'running'`);
  return (
    id: string,
    status: Exclude<JournalEntry['status'], 'running'>,
    startedMs: number,
    endedMs: number,
    input: number,
    output: number,
    error: JournalError | null,
  ): void => {
    update.run(
      status,
      iso(endedMs),
      Math.max(0, endedMs - startedMs),
      input,
      output,
      error?.code ?? null,
      error?.message ?? null,
      id,
    );
  };
}
