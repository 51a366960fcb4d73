/** `w` (the export intent) on a history screen: every match of its filters streamed to a file, with what was written. */
import { createReadStream } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import { ApiError, TransportError } from '../../client/errors.js';
import type { ActionContext, ScreenAction } from '../kit/screen-api.js';
import type { DownloadResult } from '../../client/download.js';
import { bytes } from '../kit/format.js';
import { countCsvRecords, countJsonlRecords } from '../../text/record-count.js';
import { isoSeconds, parseTimeInput } from '../../text/time-input.js';
import { customTimeFields, rangeField } from './filter-form.js';
import { fixedTime, rollingStart } from './query.js';
import { rangeOf, searchedState, type HistorySpec, type HistoryState } from './state.js';
import { describeFilters } from './summary.js';
import { completePath } from './path-complete.js';
import { thousands } from '../../text/thousands.js';

/** 20261121T093012Z: sortable and safe in a file name. */
const fileStamp = (ms: number) => isoSeconds(ms).replace(/[-:]/g, '');

type Format = 'csv' | 'jsonl';
const EXTENSION: Record<Format, string> = { csv: '.csv', jsonl: '.jsonl' };
/** The extensions a file of each format is known by: a name with the other's is a mismatch. */
const KNOWN_AS: Record<Format, RegExp> = { csv: /\.csv$/i, jsonl: /\.(jsonl|ndjson|json)$/i };
const formatOf = (v: unknown): Format => (v === 'jsonl' ? 'jsonl' : 'csv');

/** The file name after the format changed: the other format's extension swapped for this one's. */
function followFormat(path: string, format: Format): string | null {
  const other: Format = format === 'csv' ? 'jsonl' : 'csv';
  return KNOWN_AS[other].test(path) ? path.replace(KNOWN_AS[other], EXTENSION[format]) : null;
}

/** A name that says the other format (JSON Lines into `x.csv`) is refused before anything is written. */
function formatMismatch(path: string, format: Format): string | null {
  if (format === 'jsonl' && KNOWN_AS.csv.test(path))
    return 'JSON Lines into a .csv name: name it .jsonl, or choose csv';
  if (format === 'csv' && KNOWN_AS.jsonl.test(path)) return 'CSV into a JSON name: name it .csv, or choose jsonl';
  return null;
}

/**
 * The range the operator chose in the dialog: the one on screen as it is (past page 1 its frozen
 * start), or another one from now.
 */
function chosenRange(
  h: HistoryState,
  shownStart: string | null,
  v: Record<string, unknown>,
): { h: HistoryState; start: string | null } {
  const range = rangeOf(v.range).id;
  const custom = range === 'custom';
  const from = custom ? parseTimeInput(String(v.from ?? '')) : null;
  const until = custom ? parseTimeInput(String(v.until ?? '')) : null;
  if (range === h.range && (!custom || (from === h.from && until === h.until))) return { h, start: shownStart };
  const chosen = { ...h, range, from, until, cursors: [], anchor: null };
  return { h: chosen, start: rollingStart(chosen, Date.now()) };
}

export function exportAction<Row>(spec: HistorySpec): ScreenAction<Row> {
  return {
    intent: 'export',
    label: 'export',
    mutates: false,
    // handing the history on is what it is read for: kept on a short hint line before filter and paging
    hintPriority: 62,
    capability: spec.exportCapability,
    async run(ctx) {
      const h = searchedState(ctx.state);
      // The range of the pages on screen: past page 1 the start frozen when paging began, on
      // page 1 the rolling start as of now; the dialog, the request and the result all say this one.
      const start = h.cursors.length && h.anchor ? h.anchor : rollingStart(h, Date.now());
      const folder = ctx.exportFolder;
      const defaultPath = `./${spec.kind}-${fileStamp(Date.now())}.csv`;
      const v = await ctx.form({
        title: `Export the ${spec.title}`,
        message: [
          `Filters: ${describeFilters(spec, h, start)}.`,
          'Every match is written (all pages), oldest first, over the range below (as on screen unless changed).',
          `Folder: ${folder}`,
        ],
        fields: [
          {
            kind: 'select',
            name: 'format',
            label: 'Format',
            options: [
              { value: 'csv', label: 'csv (RFC 4180, header row)' },
              { value: 'jsonl', label: 'jsonl (one JSON object per line)' },
            ],
          },
          {
            kind: 'text',
            name: 'path',
            label: 'File',
            initial: defaultPath,
            required: true,
            maxLength: 1024,
            hint: `in the folder above unless it starts with / or ~; Tab completes; its extension follows the format`,
            complete: (typed) => completePath(typed, folder),
            // until the operator types a name of their own, the name says the format chosen
            follows: { fields: ['format'], value: (form) => followFormat(form.path ?? '', formatOf(form.format)) },
            validate: (path, form) => formatMismatch(path, formatOf(form?.format)),
          },
          // the range exported: the one on screen unless changed here
          rangeField(h.range),
          ...customTimeFields(h),
        ],
        submitLabel: 'export',
      });
      if (!v) return;
      const format = formatOf(v.format);
      const chosen = chosenRange(h, start, v);
      const dest = resolve(folder, String(v.path).replace(/^~(?=\/|$)/, homedir()));
      if (await checkDestination(dest)) {
        const replace = await ctx.confirm({
          title: 'Replace the file?',
          message: [`${dest} already exists.`, 'The export would replace it.'],
          confirmLabel: 'Replace',
          danger: true,
        });
        if (!replace) return;
      }
      return await runExport(ctx, spec, chosen.h, chosen.start, format, dest);
    },
  };
}

async function runExport(
  ctx: ActionContext,
  spec: HistorySpec,
  h: HistoryState,
  start: string | null,
  format: 'csv' | 'jsonl',
  dest: string,
) {
  const query = { format, ...fixedTime(h), ...(start ? { start_time: start } : {}), ...h.filters };
  const p = ctx.progress({
    title: `Exporting the ${spec.title} (${format})`,
    lines: ['waiting for the appliance…', `to ${dest}`],
    escStops: true,
  });
  const began = Date.now();
  const rowsSoFar = (lines: number) => Math.max(0, format === 'csv' ? lines - 1 : lines);
  let result;
  try {
    result = await ctx.download(
      spec.exportRoute,
      query,
      dest,
      (pr) =>
        p.update({
          lines: [
            `${thousands(rowsSoFar(pr.lines))} rows · ${bytes(pr.bytes)}${pr.total ? ` of ${bytes(pr.total)}` : ''} · ${((Date.now() - began) / 1000).toFixed(1)} s`,
            `to ${dest}`,
            ...(pr.total ? [] : ['The appliance streams the file: its size is known only at the end.']),
          ],
          ...(pr.total ? { fraction: pr.bytes / pr.total } : {}),
        }),
      p.signal,
    );
  } catch (err) {
    if (p.signal.aborted) {
      return {
        title: 'Export stopped',
        tone: 'warn' as const,
        summary: ['You stopped the export: no file was written (the partial file was removed).'],
      };
    }
    throw writeError(err, dest);
  } finally {
    p.close();
  }
  const rows = await (format === 'csv' ? countCsvRecords : countJsonlRecords)(createReadStream(dest));
  const statement = spec.exportRoute === 'exportAudit' ? await statementLines(result, dest) : [];
  return {
    title: 'Export written',
    tone: 'ok' as const,
    summary: [
      ...labelled([
        ['rows', thousands(rows)],
        ['bytes', `${thousands(result.bytes)} (${bytes(result.bytes)})`],
        ['path', result.path],
        ['sha256', result.sha256],
        ...statement,
      ]),
      '',
      `${format}, oldest first; ${describeFilters(spec, h, start)}.`,
      `The appliance records the export itself in the audit trail (${spec.kind}.export${result.requestId ? `, request ${result.requestId}` : ''}).`,
    ],
  };
}

/**
 * An audit export's FILE.checkpoint.json, written beside it as `export audit -o FILE` writes it (the
 * appliance's signed statement of what the file holds), so that `audit verify FILE --key K` checks
 * this export as it checks the CLI's; the lines saying where it went, or why there is none.
 */
async function statementLines(result: DownloadResult, dest: string): Promise<[string, string][]> {
  // with node:crypto, which the dashboard loads only when it is used
  const { statementWords, writeStatementFile } = await import('../../audit-chain/statement-file.js');
  let s;
  try {
    s = await writeStatementFile(dest, result.auditChain);
  } catch (err) {
    return [
      ['checkpoint', `not written: ${fsWords(err as NodeJS.ErrnoException)}; audit verify cannot check this export`],
    ];
  }
  return [
    ['checkpoint', statementWords(s)],
    ...(s.file === null
      ? []
      : [['', `check it with appliance-admin audit verify ${dest} --key KEY.pem`] as [string, string]]),
  ];
}

/**
 * Where the values start: after 'sha256' and two spaces, so that the hash (64 characters) stays on
 * its line in the result dialog (72 columns inside at most).
 */
const VALUE_COLUMN = 8;

/**
 * "rows    12": each value after its label, all values in one column; a longer label ('checkpoint')
 * goes on a line of its own with its value under it, in the column; a line with no label continues
 * the one above.
 */
function labelled(lines: [label: string, value: string][]): string[] {
  const indent = ' '.repeat(VALUE_COLUMN);
  return lines.flatMap(([label, value]) =>
    label.length + 2 > VALUE_COLUMN ? [label, indent + value] : [label.padEnd(VALUE_COLUMN) + value],
  );
}

/** Refuses a destination that cannot be written, in words; true when a file is already there. */
async function checkDestination(dest: string): Promise<boolean> {
  // node:fs/promises loads here, not with the dashboard: an export is rare, every start is not.
  // Not with import(): the dashboard's bundle runs from V8's code cache, where Node 20 has no
  // loader for a dynamic import (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING from the second start on).
  const { access, constants, stat } = process.getBuiltinModule('node:fs/promises');
  const dir = dirname(dest);
  const st = await stat(dir).catch((err: NodeJS.ErrnoException) => {
    throw new Error(
      err.code === 'ENOENT'
        ? `cannot write ${dest}: the directory ${dir} does not exist. Nothing was exported.`
        : `cannot write ${dest}: ${fsWords(err)}. Nothing was exported.`,
    );
  });
  if (!st.isDirectory()) throw new Error(`cannot write ${dest}: ${dir} is not a directory. Nothing was exported.`);
  await access(dir, constants.W_OK).catch(() => {
    throw new Error(`cannot write ${dest}: the directory ${dir} is not writable for you. Nothing was exported.`);
  });
  const existing = await stat(dest).catch(() => null);
  if (existing?.isDirectory()) throw new Error(`${dest} is a directory: give a file name. Nothing was exported.`);
  return existing !== null;
}

const FS_WORDS: Record<string, string> = {
  ENOENT: 'the directory does not exist',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
};
const fsWords = (err: NodeJS.ErrnoException) => (err.code && FS_WORDS[err.code]) || err.message;

/** File-system failures in words; the appliance's and the connection's errors stay as they are. */
function writeError(err: unknown, dest: string): unknown {
  if (err instanceof ApiError || err instanceof TransportError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e?.code && e.syscall) return new Error(`could not write ${dest}: ${fsWords(e)}. No file was written.`);
  return err;
}
