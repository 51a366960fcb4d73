import { OTHER_READINGS, Unreadable, type AuditEntryLike, type TrailItem } from './trail-items.js';

/** The columns of an audit export in CSV, as the server names them; the chain's three come last. */
const NEEDED = [
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
type Column = (typeof NEEDED)[number];
const NULLABLE = new Set<Column>(['actor.role', 'target.id', 'target.name', 'source_ip']);
/** A text cell the server guarded against spreadsheet formulas with a leading `'` (csv.ts). */
const GUARDED = /^'[=+\-@\t\r]/;
/** More ambiguous cells than this in one record: only the first reading is tried. */
const MAX_AMBIGUOUS = 6;

/**
 * A push parser for an audit export in CSV (RFC 4180, header row): lines in, entries out, each
 * rebuilt as the JSON the API serves so that its hash can be recomputed. CSV writes null as an
 * empty cell and guards text that starts like a formula with a `'`: where a cell could be read
 * either way, the other readings go with the entry (OTHER_READINGS).
 */
export function csvEntries(): { push(lines: string[]): TrailItem[]; end(): TrailItem[] } {
  let index: Record<Column, number> | null = null;
  let failed = false;
  let line = 0;
  let recordLine = 0;
  let cells: string[] = [];
  let cell = '';
  let quoted = false;

  const record = (out: TrailItem[]) => {
    const done = cells;
    cells = [];
    if (failed) return;
    if (!index) {
      const missing = NEEDED.filter((c) => !done.includes(c));
      if (missing.length) {
        failed = true;
        out.push(new Unreadable(recordLine, `not an audit export with a chain: no column ${missing.join(', ')}`));
        return;
      }
      index = Object.fromEntries(NEEDED.map((c) => [c, done.indexOf(c)])) as Record<Column, number>;
      return;
    }
    if (done.length === 1 && done[0] === '') return;
    out.push(toEntry(done, index));
  };

  const push = (lines: string[]): TrailItem[] => {
    const out: TrailItem[] = [];
    for (const text of lines) {
      line++;
      if (!quoted) recordLine = line;
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

function toEntry(cells: string[], at: Record<Column, number>): TrailItem {
  const ambiguous: { column: Column; other: unknown }[] = [];
  const text = (c: Column): string | null => {
    const raw = cells[at[c]] ?? '';
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
    details = JSON.parse(cells[at.details] ?? '');
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
  return entry;
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
