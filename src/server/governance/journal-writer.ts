import type { Statement } from 'better-sqlite3';
import type { JournalEntry, JournalError } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { iso, newId } from '../ids.js';
import { indexInserted } from './index-inserted.js';

/** One agent step as the journal stores it: metadata only, never prompt, tool input or output text. */
export interface JournalRecord {
  /** generated (jrn_…) when absent */
  id?: string;
  run_id: string;
  agent: string;
  channel: string;
  step: number;
  tool?: string | null;
  status: JournalEntry['status'];
  started_ms: number;
  /** null while the step runs */
  ended_ms?: number | null;
  input_tokens: number;
  output_tokens: number;
  /** why a failed or cancelled step ended: a code and a short operator-facing message */
  error?: JournalError | null;
}

const STATUSES = new Set(['running', 'succeeded', 'failed', 'cancelled']);
/** Names and ids are short; a long value would be content, which the journal never keeps. */
const MAX_NAME = 200;
const MAX_ERROR_CODE = 100;
/** An error message is a short sentence for an operator; a long one would be a tool's output. */
const MAX_ERROR_MESSAGE = 300;

/** The error as stored, or a reason it cannot be. */
function checkJournalError(error: JournalError | null | undefined): string | null {
  if (error == null) return null;
  if (typeof error.code !== 'string' || !/^[a-z][a-z0-9_]*$/.test(error.code) || error.code.length > MAX_ERROR_CODE)
    return `error.code must be a snake_case word of at most ${MAX_ERROR_CODE} characters`;
  if (typeof error.message !== 'string' || error.message.length > MAX_ERROR_MESSAGE)
    return `error.message must be at most ${MAX_ERROR_MESSAGE} characters`;
  return null;
}

const isCount = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;

function check(e: JournalRecord): void {
  const bad = (why: string): never => {
    throw new TypeError(`journal entry: ${why}`);
  };
  for (const k of ['run_id', 'agent', 'channel'] as const) {
    if (typeof e[k] !== 'string' || e[k].length === 0 || e[k].length > MAX_NAME)
      bad(`${k} must be 1..${MAX_NAME} characters`);
  }
  // no tool is null, never '' (the summaries' tallies stand '' for null)
  if (e.tool != null && (typeof e.tool !== 'string' || e.tool.length === 0 || e.tool.length > MAX_NAME))
    bad(`tool must be 1..${MAX_NAME} characters or null`);
  if (!STATUSES.has(e.status)) bad(`unknown status ${String(e.status)}`);
  if (!isCount(e.step) || !isCount(e.input_tokens) || !isCount(e.output_tokens))
    bad('step and token counts must be whole numbers >= 0');
  if (!Number.isSafeInteger(e.started_ms)) bad('started_ms must be epoch milliseconds');
  if (e.ended_ms != null && (!Number.isSafeInteger(e.ended_ms) || e.ended_ms < e.started_ms))
    bad('ended_ms must not be before started_ms');
  const why = checkJournalError(e.error);
  if (why) bad(why);
}

/** The row to insert; throws TypeError on an entry the journal's contract could not show. */
export function journalRow(e: JournalRecord) {
  check(e);
  const ended = e.ended_ms ?? null;
  return {
    id: e.id ?? newId('jrn'),
    run_id: e.run_id,
    agent: e.agent,
    channel: e.channel,
    step: e.step,
    tool: e.tool ?? null,
    status: e.status,
    started_at: iso(e.started_ms),
    started_ms: e.started_ms,
    ended_at: ended === null ? null : iso(ended),
    duration_ms: ended === null ? null : ended - e.started_ms,
    input_tokens: e.input_tokens,
    output_tokens: e.output_tokens,
    error_code: e.error?.code ?? null,
    error_message: e.error?.message ?? null,
  };
}

const inserts = new WeakMap<Db, Statement>();

export function journalInsert(db: Db): Statement {
  let st = inserts.get(db);
  if (!st) {
    st =
      db.prepare(`INSERT INTO journal (id, run_id, agent, channel, step, tool, status, started_at, started_ms, ended_at, duration_ms, input_tokens, output_tokens, error_code, error_message)
      VALUES (@id, @run_id, @agent, @channel, @step, @tool, @status, @started_at, @started_ms, @ended_at, @duration_ms, @input_tokens, @output_tokens, @error_code, @error_message)`);
    inserts.set(db, st);
  }
  return st;
}

/** Appends one journal entry and returns its id. */
export function recordJournal(db: Db, entry: JournalRecord): string {
  const row = journalRow(entry);
  // the step and its count in the summaries: both or neither
  db.transaction(() => indexInserted(db, 'journal', journalInsert(db).run(row).lastInsertRowid))();
  return row.id;
}
