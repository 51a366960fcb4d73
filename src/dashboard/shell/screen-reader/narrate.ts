import type { ConnectionInfo } from '../../state/resources.js';
import type { Flash } from '../../state/ui.js';
import type { DialogSpec } from '../../state/dialogs.js';
import { changeText, dialogText, formChangeLines, newDialogLines, speakable } from './speech.js';
import { thousands } from '../../../text/thousands.js';
import type { FormStatus } from '../../kit/dialog-specs.js';

/** What the dashboard shows at one moment, as the screen-reader mode compares it to the last one. */
export interface Snapshot {
  screen: string;
  title: string;
  mode: 'normal' | 'help' | 'command' | 'filter' | 'detail';
  /** every answer the screen asked for has arrived, or failed */
  loaded: boolean;
  /** the screen's main answer failed and there is none to show */
  failed: boolean;
  /** `form`: where a form's focus is and what its submits refused, once it has said */
  dialog: { id: number; spec: DialogSpec; form?: FormStatus | null } | null;
  flash: Flash | null;
  connection: Pick<ConnectionInfo, 'state' | 'error'>;
  list: ListSnapshot | null;
  /** what help or the detail view reads, in those modes */
  page: string[];
}

interface ListSnapshot {
  /** the filter and the order: a change of either is a new view of the list, not a refresh */
  view: string;
  filter: string;
  empty: string;
  /** each row's content by its key: what a refresh is compared by */
  rows: ReadonlyMap<string, string>;
  count: number;
  cursor: number;
  cursorKey: string | null;
  cursorText: string | null;
}

const plural = (n: number, word: string) => `${thousands(n)} ${word}${n === 1 ? '' : 's'}`;

function listLine(list: ListSnapshot): string {
  const matching = list.filter ? ` matching "${speakable(list.filter, 60)}"` : '';
  if (list.count === 0) return `no rows${matching}: ${speakable(list.empty)}`;
  return `list of ${plural(list.count, 'row')}${matching}, cursor on row ${list.cursor + 1}: ${list.cursorText}`;
}

function intro(s: Snapshot): string {
  const name = `${speakable(s.title, 80)} screen`;
  if (!s.loaded) return `${name}, loading`;
  if (s.failed) return `${name}, no data: the request failed; r retries`;
  if (!s.list) return `${name}; Enter reads its details`;
  return `${name}, ${listLine(s.list)}`;
}

function refreshLine(before: ListSnapshot, after: ListSnapshot): string | null {
  if (before.rows === after.rows) return null;
  let changed = 0;
  let added = 0;
  for (const [key, text] of after.rows) {
    const was = before.rows.get(key);
    if (was === undefined) added++;
    else if (was !== text) changed++;
  }
  let removed = 0;
  for (const key of before.rows.keys()) if (!after.rows.has(key)) removed++;
  return changeText(changed, added, removed);
}

const isPage = (mode: Snapshot['mode']) => mode === 'help' || mode === 'detail';

const PROMPTS: Partial<Record<Snapshot['mode'], string>> = {
  command: 'command line: type a screen name and press Enter; Esc cancels',
  filter: 'filter: type to narrow the rows, Enter keeps the filter, Esc clears it',
};

/**
 * The lines to say for the change from `before` to `after`: nothing when nothing a reader follows
 * changed (an unchanged refresh, a clock tick), one line for a cursor move, a screen or dialog read
 * once as it opens.
 */
export function narrate(before: Snapshot | null, after: Snapshot): string[] {
  const out: string[] = [];
  const was = before?.connection.state;
  if (was && was !== after.connection.state) {
    if (after.connection.state === 'down')
      out.push(`connection lost: ${speakable(after.connection.error ?? 'no answer', 160)}; retrying`);
    else if (after.connection.state === 'ok' && was === 'down') out.push('connection restored');
  }
  const flash = after.flash && after.flash !== before?.flash ? speakable(after.flash.text) : null;
  if (after.dialog) {
    if (before?.dialog?.id !== after.dialog.id) out.push(...dialogText(after.dialog.spec));
    else {
      if (before.dialog.spec !== after.dialog.spec) out.push(...newDialogLines(before.dialog.spec, after.dialog.spec));
      out.push(...formChangeLines(after.dialog.spec, before.dialog.form, after.dialog.form));
    }
    if (flash) out.push(flash);
    return out;
  }
  const entered =
    !before ||
    before.screen !== after.screen ||
    before.dialog !== null ||
    before.loaded !== after.loaded ||
    before.failed !== after.failed ||
    (before.mode !== after.mode && (isPage(before.mode) || isPage(after.mode)));
  const prompt = PROMPTS[after.mode];
  if (isPage(after.mode)) {
    if (entered) out.push(...after.page);
  } else if (entered) {
    out.push(intro(after));
  } else if (prompt && before?.mode !== after.mode) {
    out.push(prompt);
  } else if (before?.list && after.list && after.loaded) {
    const [b, a] = [before.list, after.list];
    if (b.view !== a.view) out.push(listLine(a));
    else {
      const refreshed = refreshLine(b, a);
      if (refreshed) out.push(refreshed);
      // a refresh alone moves no cursor: rows arriving above it, or another record under an
      // untouched one, are the refresh's line; a key moves both the position and the record
      const moved =
        b.rows === a.rows
          ? b.cursorKey !== a.cursorKey || b.cursor !== a.cursor
          : b.cursorKey !== a.cursorKey && b.cursor !== a.cursor;
      if (moved && a.cursorText !== null) out.push(`row ${a.cursor + 1} of ${a.count}: ${a.cursorText}`);
    }
  }
  if (flash) out.push(flash);
  return out;
}
