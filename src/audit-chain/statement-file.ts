import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { asCheckpoint } from './checkpoint.js';
import { asSignedStatement, statementFileText } from './statement.js';
import { thousands } from '../text/thousands.js';

/**
 * FILE.checkpoint.json beside an audit export, from the export's headers as sent (the CLI's export
 * and the dashboard's both write it): the signed statement of what the file holds and the head's
 * checkpoint. Returns the file's text and a line saying what it holds, or null and why there is none.
 */
export function statementFileOf(headers: {
  statement: string | null;
  checkpoint: string | null;
}): { text: string; seq: number; count: number; filtered: boolean } | { text: null; why: string } {
  const parse = (text: string | null) => {
    try {
      return text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      return undefined;
    }
  };
  const statement = asSignedStatement(parse(headers.statement));
  const checkpoint = asCheckpoint(parse(headers.checkpoint));
  if (typeof statement === 'string')
    return {
      text: null,
      why: 'the appliance sent no signed statement of what the file holds, so it cannot be verified complete',
    };
  return {
    text: statementFileText(statement, typeof checkpoint === 'string' ? null : checkpoint),
    seq: statement.statement.head.seq,
    count: statement.statement.count,
    filtered: Object.keys(statement.statement.filters).length > 0,
  };
}

/**
 * Writes FILE.checkpoint.json beside the export `dest` (mode 0600), as `export audit -o` and the
 * dashboard's export both do, so that `audit verify FILE` finds it. Without a signed statement,
 * a statement file left beside an earlier export of that name is removed: it would misstate this one.
 */
export async function writeStatementFile(
  dest: string,
  headers: { statement: string | null; checkpoint: string | null },
): Promise<{ file: string; seq: number; filtered: boolean } | { file: null; why: string }> {
  const s = statementFileOf(headers);
  const file = `${dest}.checkpoint.json`;
  if (s.text === null) {
    await rm(file, { force: true });
    return { file: null, why: s.why };
  }
  // written beside it and renamed over it: a link at the name is replaced, never followed, and the file is
  // as private as the export whatever was there before
  const tmp = `${file}.${process.pid}.${Date.now()}.part`;
  try {
    await writeFile(tmp, s.text, { mode: 0o600, flag: 'wx' });
    await chmod(tmp, 0o600);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return { file, seq: s.seq, filtered: s.filtered };
}

/** What writeStatementFile wrote, said after the word "checkpoint": the file and its head, or why there is none. */
export function statementWords(s: Awaited<ReturnType<typeof writeStatementFile>>): string {
  return s.file === null
    ? `none: ${s.why}`
    : `${s.file} (signed statement, head #${thousands(s.seq)}${s.filtered ? ', filtered export' : ''})`;
}
