import { sanitize } from '../../text/sanitize.js';
import { thousands } from '../../text/thousands.js';
import type { Column } from '../../ui/screen-api.js';
import type { DialogSpec } from '../dialogs.js';

// What the screen-reader mode says, as plain lines: no colour, no box drawing, no padding.

// Box drawing, block elements (sparklines, bars), shapes (status dots, sort marks) and braille
// (charts) mean nothing read aloud: the words beside them say it.
const GLYPHS = /[\u2500-\u25ff\u2800-\u28ff]+/g;

/** Text from the appliance or a screen, made fit to be read: sanitized, glyphs out, one line. */
export function speakable(value: unknown, max = 300): string {
  return sanitize(value, max)
    .replaceAll('∞', 'unlimited')
    .replace(GLYPHS, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\( /g, '(')
    .replace(/ \)/g, ')')
    .trim();
}

/** "Name sandbox, Status active, Quota rpm/tpm/tpd 60 / 40k / unlimited": each cell with its column. */
export function rowText(columns: readonly Column<unknown>[], row: unknown): string {
  return columns
    .map((c) => {
      let value: string;
      try {
        value = speakable(c.value(row), 120);
      } catch {
        value = '';
      }
      return `${speakable(c.header, 60)} ${value === '' || value === '–' ? 'none' : value}`;
    })
    .join(', ');
}

const plural = (n: number, word: string) => `${thousands(n)} ${word}${n === 1 ? '' : 's'}`;

/** What a refresh changed in a list, or null when it changed nothing. */
export function changeText(changed: number, added: number, removed: number): string | null {
  if (!changed && !added && !removed) return null;
  const parts = [changed ? `${plural(changed, 'row')} changed` : '', added ? `${added} new` : ''];
  if (removed) parts.push(`${removed} removed`);
  const said = parts.filter(Boolean);
  // "1 new" alone reads oddly: name the rows
  if (!changed) said[0] = added ? `${plural(added, 'new row')}` : `${plural(removed, 'row')} removed`;
  return said.join(', ');
}

const joined = (lines: string | string[] | undefined) =>
  (Array.isArray(lines) ? lines : lines ? [lines] : []).map((l) => speakable(l)).filter(Boolean);

function fieldText(f: Extract<DialogSpec, { kind: 'form' }>['fields'][number], i: number, n: number): string {
  const initial = f.kind === 'select' ? f.options.find((o) => o.value === f.initial)?.label : f.initial;
  const value = initial === undefined || initial === null || initial === '' ? 'empty' : `value ${speakable(initial)}`;
  const kind =
    f.kind === 'select'
      ? `choice of ${f.options.map((o) => speakable(o.label, 60)).join(', ')}`
      : f.kind === 'limit'
        ? 'number'
        : f.kind;
  const hint = f.hint ? `; ${speakable(f.hint)}` : '';
  return `field ${i + 1} of ${n}: ${speakable(f.label, 80)}, ${kind}, ${value}${hint}`;
}

/** A dialog as it opens: its title, what it says, its fields and its buttons. */
export function dialogText(spec: DialogSpec): string[] {
  const title = `dialog: ${speakable(spec.title, 120)}`;
  switch (spec.kind) {
    case 'confirm':
      return [
        title,
        ...joined(spec.message),
        `buttons: Cancel (focused), ${speakable(spec.confirmLabel ?? 'Confirm', 60)}; left and right choose, Enter selects, Esc cancels`,
      ];
    case 'typeToConfirm':
      return [
        title,
        ...joined(spec.message),
        `type ${speakable(spec.expected, 120)} and press Enter to confirm; Esc cancels`,
      ];
    case 'form':
      return [
        title,
        ...joined(spec.message),
        ...spec.fields.map((f, i) => fieldText(f, i, spec.fields.length)),
        `Tab moves between fields, Enter ${speakable(spec.submitLabel ?? 'submits', 60)}, Esc cancels`,
      ];
    case 'pick':
      return [
        title,
        ...joined(spec.message),
        ...spec.items.map((it, i) => `${i + 1}: ${speakable(it.label)}${it.hint ? `, ${speakable(it.hint)}` : ''}`),
        'up and down move, Enter chooses, Esc cancels',
      ];
    case 'message':
      return [title, ...joined(spec.lines), 'Enter or Esc closes'];
    case 'secret':
      // An append-only stream stays in the scrollback: the secret itself is never written here.
      return [
        title,
        ...joined(spec.lines),
        'the secret is not read out: c copies it to the clipboard; Enter or Esc closes',
      ];
    case 'progress':
      return [title, ...joined(spec.lines), 'Esc stops following'];
    case 'signIn':
      return [
        title,
        ...joined(spec.lines),
        ...(spec.prompt
          ? [`open ${speakable(spec.prompt.verificationUri)} and enter the code ${speakable(spec.prompt.userCode, 40)}`]
          : []),
      ];
  }
}

/** The lines a dialog still open says after an update (progress): only those not said before. */
export function newDialogLines(before: DialogSpec, after: DialogSpec): string[] {
  const said = new Set(dialogText(before));
  return dialogText(after).filter((l) => !said.has(l));
}
