import { describe, expect, it } from 'vitest';
import { narrate, type Snapshot } from '../../src/dashboard/shell/screen-reader/narrate.js';

const rows = new Map([
  ['k1', '{"name":"one"}'],
  ['k2', '{"name":"two"}'],
]);
const base: Snapshot = {
  screen: 'keys',
  title: 'Gateway keys',
  mode: 'normal',
  loaded: true,
  failed: false,
  dialog: null,
  flash: null,
  connection: { state: 'ok', error: null },
  list: {
    view: '["",null]',
    filter: '',
    empty: 'No keys',
    rows,
    count: 2,
    cursor: 0,
    cursorKey: 'k1',
    cursorText: 'Name one',
  },
  page: [],
};
const down = { ...base, connection: { state: 'down' as const, error: 'connect ECONNREFUSED 127.0.0.1:9' } };

describe('what the screen-reader mode says', () => {
  it('says a lost connection once, however many polls fail, and its return once', () => {
    expect(narrate(base, down)).toEqual(['connection lost: connect ECONNREFUSED 127.0.0.1:9; retrying']);
    expect(narrate(down, { ...down })).toEqual([]);
    expect(narrate(down, base)).toEqual(['connection restored']);
    expect(narrate(base, { ...base })).toEqual([]);
  });

  it('reads the screen again when its failed answer comes in, rather than counting its rows as new', () => {
    const failed = { ...base, failed: true, list: { ...base.list!, rows: new Map(), count: 0, cursorKey: null } };
    expect(narrate(base, failed)).toEqual(['Gateway keys screen, no data: the request failed; r retries']);
    expect(narrate(failed, base)).toEqual(['Gateway keys screen, list of 2 rows, cursor on row 1: Name one']);
  });

  it('reads a progress dialog once, then only the lines an update adds', () => {
    const spec = { kind: 'progress' as const, title: 'Applying', lines: ['step 1 of 2'] };
    const open = { ...base, dialog: { id: 7, spec } };
    expect(narrate(base, open)).toEqual(['dialog: Applying', 'step 1 of 2', 'Esc stops following']);
    expect(narrate(open, { ...open })).toEqual([]);
    const next = { ...base, dialog: { id: 7, spec: { ...spec, lines: ['step 1 of 2', 'step 2 of 2'] } } };
    expect(narrate(open, next)).toEqual(['step 2 of 2']);
  });

  it('says nothing when a form first reports its focus (its opening read said the fields), then each move', () => {
    const spec = {
      kind: 'form' as const,
      title: 'Set quota',
      fields: [
        { kind: 'limit' as const, name: 'rpm', label: 'Requests / minute', initial: 60 },
        { kind: 'number' as const, name: 'days', label: 'Days', required: true },
      ],
    };
    const open = { ...base, dialog: { id: 9, spec, form: null } };
    const reported = { ...base, dialog: { id: 9, spec, form: { focus: 0, value: '60', errors: {}, refused: 0 } } };
    expect(narrate(open, reported)).toEqual([]);
    const moved = { ...base, dialog: { id: 9, spec, form: { focus: 1, value: '', errors: {}, refused: 0 } } };
    expect(narrate(reported, moved)).toEqual(['field 2 of 2: Days, number, empty, required']);
    expect(narrate(moved, { ...moved })).toEqual([]);
  });

  it('never says a secret a dialog shows', () => {
    const spec = { kind: 'secret' as const, title: 'Secret for k', secret: 'aak_live_supersecret', lines: ['Give it'] };
    expect(narrate(base, { ...base, dialog: { id: 8, spec } }).join('\n')).not.toContain('supersecret');
  });

  it('says a refresh that changed rows in one line, and a message once', () => {
    const changed = new Map([
      ['k1', '{"name":"one!"}'],
      ['k3', '{"name":"three"}'],
    ]);
    const after = { ...base, list: { ...base.list!, rows: changed } };
    expect(narrate(base, after)).toEqual(['1 row changed, 1 new, 1 removed']);
    const flash = { text: 'refreshing…', tone: 'info' as const, at: 1 };
    expect(narrate(base, { ...base, flash })).toEqual(['refreshing…']);
    expect(narrate({ ...base, flash }, { ...base, flash })).toEqual([]);
  });
});
