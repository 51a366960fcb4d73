import { csvCellValue } from '../text/csv-cell.js';
import {
  MAX_LINE_BYTES,
  NOT_CANONICAL,
  OTHER_READINGS,
  Unreadable,
  type AuditEntryLike,
  type TrailItem,
} from './trail-items.js';

/** The columns of an audit export in CSV, in the appliance's order; the chain's three come last. */
export const AUDIT_CSV_HEADERS = [
  'id',
  'at',
  'actor.subject',
  'actor.role',
  'action',
  'target.type',
  'target.id',
  'outcome',
  'status',
  'request_id',
  'source_ip',
  'details',
  'target.name',
  'seq',
  'prev_hash',
  'hash',
] as const;
type Column = (typeof AUDIT_CSV_HEADERS)[number];
const NULLABLE = new Set<Column>(['actor.role', 'target.id', 'target.name', 'source_ip']);
const NUMBERS = new Set<Column>(['status', 'seq']);
/** A text cell the appliance guarded against spreadsheet formulas with a leading `'`. */
const GUARDED = /^'[=+\-@\t\r]/;
/** More ambiguous cells than this in one record: only the first reading is tried. */
const MAX_AMBIGUOUS = 6;

/**
 * A push parser for an audit export in CSV (RFC 4180, the appliance's header row): lines in,
 * entries out, each rebuilt as the JSON the API serves so that its hash can be recomputed. CSV
 * writes null as an empty cell and guards text that starts like a formula with a `'`: where a cell
 * could be read either way, the other readings go with the entry (OTHER_READINGS). A record verifies
 * only when the reading that hashes right is written back to exactly its cells (NOT_CANONICAL): a
 * guard removed, a number re-typed or a details cell re-encoded is not the record the appliance wrote.
 */
export function csvEntries(): { push(lines: (string | Unreadable)[]): TrailItem[]; end(): TrailItem[] } {
  let headerRead = false;
  let failed = false;
  let line = 0;
  let recordLine = 0;
  let cells: string[] = [];
  let cell = '';
  let size = 0;
  let quoted = false;

  const record = (out: TrailItem[]) => {
    const done = cells;
    cells = [];
    size = 0;
    if (failed) return;
    if (!headerRead) {
      if (done.join(',') !== AUDIT_CSV_HEADERS.join(',')) {
        failed = true;
        out.push(
          new Unreadable(
            recordLine,
            `not an audit export with a chain: the header is not ${AUDIT_CSV_HEADERS.join(',')}`,
          ),
        );
        return;
      }
      headerRead = true;
      return;
    }
    if (done.length === 1 && done[0] === '') return;
    if (done.length !== AUDIT_CSV_HEADERS.length) {
      out.push(new Unreadable(recordLine, `${done.length} cells, where the header has ${AUDIT_CSV_HEADERS.length}`));
      return;
    }
    out.push(toEntry(done));
  };

  const push = (lines: (string | Unreadable)[]): TrailItem[] => {
    const out: TrailItem[] = [];
    for (const text of lines) {
      line++;
      if (text instanceof Unreadable) {
        // a record cannot be read past a line that could not be read: start again after it
        out.push(text);
        cells = [];
        cell = '';
        size = 0;
        quoted = false;
        continue;
      }
      if (!quoted) recordLine = line;
      size += text.length;
      if (size > MAX_LINE_BYTES) {
        out.push(new Unreadable(recordLine, `a record longer than ${MAX_LINE_BYTES} characters`));
        cells = [];
        cell = '';
        size = 0;
        quoted = false;
        continue;
      }
      let i = 0;
      if (quoted) cell += '\n';
      else if (!text.includes('"')) {
        const plain = text.endsWith('\r') ? text.slice(0, -1) : text;
        cells = plain.split(',');
        record(out);
        continue;
      }
      while (i < text.length) {
        const c = text[i];
        if (quoted) {
          if (c === '"') {
            if (text[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            quoted = false;
          } else cell += c;
        } else if (c === '"') quoted = true;
        else if (c === ',') {
          cells.push(cell);
          cell = '';
        } else if (!(c === '\r' && i === text.length - 1)) cell += c;
        i++;
      }
      if (!quoted) {
        cells.push(cell);
        cell = '';
        record(out);
      }
    }
    return out;
  };

  return {
    push,
    end: () => (quoted ? [new Unreadable(recordLine, 'a quoted cell is never closed')] : []),
  };
}

const at = Object.fromEntries(AUDIT_CSV_HEADERS.map((c, i) => [c, i])) as Record<Column, number>;

function toEntry(cells: string[]): TrailItem {
  const ambiguous: { column: Column; other: unknown }[] = [];
  const text = (c: Column): string | null => {
    const raw = cells[at[c]];
    if (raw === '' && NULLABLE.has(c)) {
      ambiguous.push({ column: c, other: '' });
      return null;
    }
    if (GUARDED.test(raw)) {
      ambiguous.push({ column: c, other: raw });
      return raw.slice(1);
    }
    return raw;
  };
  const number = (c: Column) => (cells[at[c]] === '' ? null : Number(cells[at[c]]));
  let details: unknown;
  try {
    details = JSON.parse(cells[at.details]);
  } catch {
    details = cells[at.details];
  }
  const values: Record<Column, unknown> = {
    id: text('id'),
    at: text('at'),
    'actor.subject': text('actor.subject'),
    'actor.role': text('actor.role'),
    action: text('action'),
    'target.type': text('target.type'),
    'target.id': text('target.id'),
    outcome: text('outcome'),
    status: number('status'),
    request_id: text('request_id'),
    source_ip: text('source_ip'),
    details,
    'target.name': text('target.name'),
    seq: number('seq'),
    prev_hash: cells[at.prev_hash],
    hash: cells[at.hash],
  };
  const entry: AuditEntryLike = build(values);
  if (ambiguous.length && ambiguous.length <= MAX_AMBIGUOUS)
    Object.defineProperty(entry, OTHER_READINGS, { value: () => otherReadings(values, ambiguous), enumerable: false });
  Object.defineProperty(entry, NOT_CANONICAL, { value: (r: Record<string, unknown>) => notCanonical(r, cells) });
  return entry;
}

/** Why `cells` are not how the appliance writes the entry `reading`, or null when they are. */
function notCanonical(reading: Record<string, unknown>, cells: string[]): string | null {
  const actor = reading.actor as Record<string, unknown>;
  const target = reading.target as Record<string, unknown>;
  const value: Record<Column, unknown> = {
    id: reading.id,
    at: reading.at,
    'actor.subject': actor.subject,
    'actor.role': actor.role,
    action: reading.action,
    'target.type': target.type,
    'target.id': target.id,
    outcome: reading.outcome,
    status: reading.status,
    request_id: reading.request_id,
    source_ip: reading.source_ip,
    details: JSON.stringify(reading.details),
    'target.name': target.name,
    seq: reading.seq,
    prev_hash: reading.prev_hash,
    hash: reading.hash,
  };
  for (const c of AUDIT_CSV_HEADERS) {
    const v = value[c];
    const written = NUMBERS.has(c) || c === 'details' || c === 'prev_hash' || c === 'hash' ? String(v) : v;
    if (csvCellValue(written as string | null) !== cells[at[c]])
      return c === 'details'
        ? 'its contents hash right, but its details cell is not the JSON the appliance wrote (re-encoded, a duplicate key)'
        : `its contents hash right, but its ${c} cell is not what the appliance wrote` +
            (GUARDED.test(csvCellValue(written as string)) ? " (the formula guard ' was removed)" : '');
  }
  return null;
}

/** Every combination of the ambiguous cells' readings but the first. */
function otherReadings(values: Record<Column, unknown>, ambiguous: { column: Column; other: unknown }[]) {
  const out: Record<string, unknown>[] = [];
  for (let mask = 1; mask < 1 << ambiguous.length; mask++) {
    const v = { ...values };
    ambiguous.forEach((a, i) => {
      if (mask & (1 << i)) v[a.column] = a.other;
    });
    out.push(build(v));
  }
  return out;
}

const build = (v: Record<Column, unknown>): Record<string, unknown> => ({
  id: v.id,
  at: v.at,
  actor: { subject: v['actor.subject'], role: v['actor.role'] },
  action: v.action,
  target: { type: v['target.type'], id: v['target.id'], name: v['target.name'] },
  outcome: v.outcome,
  status: v.status,
  request_id: v.request_id,
  source_ip: v.source_ip,
  details: v.details,
  seq: v.seq,
  prev_hash: v.prev_hash,
  hash: v.hash,
});
