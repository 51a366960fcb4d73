import { sanitize } from '../../../text/sanitize.js';
import { thousands } from '../../../text/thousands.js';
import type { Column } from '../../kit/screen-api.js';
import type { DialogSpec } from '../../state/dialogs.js';
import { initialText } from '../../widgets/dialogs/form-model.js';
import type { FormField } from '../../kit/dialog-specs.js';
import type { FormStatus } from '../../kit/dialog-specs.js';

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

/** "value 60", "empty", a select's option by its label; a limit left empty is unlimited. */
function valueText(f: FormField, value: string): string {
  if (f.kind === 'select') return `value ${speakable(f.options.find((o) => o.value === value)?.label ?? value, 120)}`;
  if (value === '') return f.kind === 'limit' ? 'empty, unlimited' : 'empty';
  return `value ${speakable(value)}`;
}

/**
 * A field as the form shows it with the focus on it: its label, kind, value or "empty", whether it
 * is required, the error a submit found in it, and its hint.
 */
function fieldText(f: FormField, i: number, n: number, value: string, error?: string): string {
  const kind =
    f.kind === 'select'
      ? `choice of ${f.options.map((o) => speakable(o.label, 60)).join(', ')}`
      : f.kind === 'limit'
        ? 'number'
        : f.kind;
  const required = (f.kind === 'text' || f.kind === 'number') && f.required ? ', required' : '';
  const wrong = error ? `; error: ${speakable(error)}` : '';
  const hint = f.hint ? `; ${speakable(f.hint)}` : '';
  return `field ${i + 1} of ${n}: ${speakable(f.label, 80)}, ${kind}, ${valueText(f, value)}${required}${wrong}${hint}`;
}

/**
 * What a form's report changed (FormDialog's status): a refused submit's errors, then the field
 * it put the focus on; a move to another field; a select's new choice. Typing is not repeated.
 */
export function formChangeLines(
  spec: DialogSpec,
  before: FormStatus | null | undefined,
  after: FormStatus | null | undefined,
): string[] {
  if (spec.kind !== 'form' || !before || !after) return [];
  const field = spec.fields[after.focus];
  if (!field) return [];
  const out: string[] = [];
  if (after.refused > before.refused) {
    const wrong = spec.fields.filter((f) => after.errors[f.name]);
    const list = wrong.map((f) => `${speakable(f.label, 80)}: ${speakable(after.errors[f.name])}`).join('; ');
    out.push(`not sent: ${plural(wrong.length, 'field')} to correct: ${list}`);
  }
  if (out.length || after.focus !== before.focus)
    out.push(fieldText(field, after.focus, spec.fields.length, after.value, after.errors[field.name]));
  else if (after.value !== before.value) out.push(`${speakable(field.label, 80)}: ${valueText(field, after.value)}`);
  return out;
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
        ...spec.fields.map((f, i) => fieldText(f, i, spec.fields.length, initialText(f))),
        `Tab moves between fields, Enter ${speakable(spec.submitLabel ?? 'submits', 60)}, Esc cancels`,
      ];
    case 'pick':
      return [
        title,
        ...joined(spec.message),
        ...spec.items.map((it, i) => `${i + 1}: ${speakable(it.label)}${it.hint ? `, ${speakable(it.hint)}` : ''}`),
        'up and down move, Enter chooses, Esc cancels',
      ];
    case 'message': {
      const choices = (spec.choices ?? []).map((c) => `${speakable(c.key, 10)} ${speakable(c.label, 80)}; `).join('');
      return [title, ...joined(spec.lines), `${choices}Enter or Esc closes`];
    }
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
