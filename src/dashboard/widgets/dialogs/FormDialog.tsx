import React, { useEffect, useRef } from 'react';
import type { FormStatus } from '../../kit/dialog-specs.js';
import { useLiveState } from '../../terminal/hooks.js';
import { Box, Text, useInput, type Key } from 'ink';
import { Frame, innerWidth, lines } from './Frame.js';
import { pastedLine } from './edit.js';
import { editLine, pasteIntoLine, type EditedLine } from '../line-edit.js';
import { CaretText } from '../CaretText.js';
import { initialText, parseForm } from './form-model.js';
import { colour } from '../../kit/theme.js';
import { sanitize } from '../../../text/sanitize.js';
import { usePaste } from '../../terminal/paste.js';
import { fit, truncate, wrapText } from '../../kit/text.js';
import { fieldWindow } from './field-window.js';
import type { FormField, FormValues } from '../../kit/dialog-specs.js';

export interface FormProps {
  title: string;
  message?: string | string[];
  fields: FormField[];
  /** the field to open on, by name (default the first) */
  focus?: string;
  submitLabel?: string;
  width: number;
  /** lines available; a long form shows the fields around the focused one */
  height?: number;
  isActive: boolean;
  onDone(values: FormValues | null): void;
  /** told where the focus is and what a submit refused, as they change (the screen-reader mode says them) */
  onStatus?(status: FormStatus): void;
}

/** How many characters a typed field takes. */
const limitOf = (f: FormField) => (f.kind === 'text' ? (f.maxLength ?? 200) : 24);

/** A key that types (a character), as opposed to one that moves the caret or edits around it. */
const typesText = (input: string, key: Key) =>
  input !== '' &&
  !key.ctrl &&
  !key.meta &&
  !key.leftArrow &&
  !key.rightArrow &&
  !key.backspace &&
  !key.delete &&
  !(key as { home?: boolean }).home &&
  !(key as { end?: boolean }).end;

/**
 * The form after the operator changed `changed`: each field that follows it takes its new value,
 * except a typed field the operator has typed into (it is theirs now).
 */
function withFollowers(
  fields: FormField[],
  raw: Record<string, string>,
  changed: string,
  typedInto: ReadonlySet<string>,
): Record<string, string> {
  let out = raw;
  for (const f of fields) {
    if (!f.follows?.fields.includes(changed) || (f.kind !== 'select' && typedInto.has(f.name))) continue;
    const v = f.follows.value(out);
    if (v !== null && v !== out[f.name]) out = { ...out, [f.name]: v };
  }
  return out;
}

/**
 * Fields: text, limit (whole number or empty for unlimited), number, select (←/→ to change).
 * Tab/Shift-Tab or ↑↓ move between fields; Enter submits (or shows what to fix); Esc cancels.
 * A paste goes into the focused typed field as one line. The focused field shows its end (the
 * caret), and says so when its limit cut what was typed or pasted. A prefilled value is selected
 * when its field takes the focus: typing (or a paste) replaces it, Backspace empties it, a caret key
 * keeps it and edits from there (`20` then `5` is 5, not 205).
 */
export function FormDialog(p: FormProps) {
  const [raw, setRaw, getRaw] = useLiveState<Record<string, string>>(() =>
    Object.fromEntries(p.fields.map((f) => [f.name, initialText(f)])),
  );
  const [focus, setFocus, getFocus] = useLiveState(() =>
    Math.max(
      0,
      p.fields.findIndex((f) => f.name === p.focus),
    ),
  );
  // the focused field's prefilled text is selected: the next character typed replaces it
  const selectedIn = (i: number, raw: Record<string, string>) =>
    p.fields[i] !== undefined && p.fields[i].kind !== 'select' && (raw[p.fields[i].name] ?? '') !== '';
  const [selected, setSelected, getSelected] = useLiveState(() => selectedIn(getFocus(), getRaw()));
  // typed fields the operator typed into: they no longer follow the fields they follow
  const typedInto = useRef<ReadonlySet<string>>(new Set());
  const [errors, setErrors, getErrors] = useLiveState<Record<string, string>>({});
  // the field whose limit cut the last thing typed or pasted into it
  const [clipped, setClipped] = useLiveState<string | null>(null);
  // the focused field's caret (readline keys move it); null: at the end of its text
  const [caret, setCaret, getCaret] = useLiveState<number | null>(null);
  // what Tab in a completing field left to choose from, shown under it until the next key
  const [candidates, setCandidates] = useLiveState<string[] | null>(null);
  const [refused, setRefused] = useLiveState(0);
  const lineOf = (field: FormField) => {
    const text = getRaw()[field.name] ?? '';
    return { text, caret: getCaret() ?? [...text].length };
  };

  const store = (field: FormField, edited: EditedLine | null) => {
    if (edited === null) return;
    const raw = getRaw();
    const errors = getErrors();
    setSelected(false);
    setClipped(edited.clipped ? field.name : null);
    setCaret(edited.caret);
    if (edited.text === raw[field.name]) return;
    const typed = new Set(typedInto.current).add(field.name);
    typedInto.current = typed;
    setRaw(withFollowers(p.fields, { ...raw, [field.name]: edited.text }, field.name, typed));
    if (errors[field.name]) setErrors({ ...errors, [field.name]: '' });
  };
  /** A key in a typed field whose prefilled text is selected: typing replaces it, Backspace empties it. */
  const replaceSelected = (field: FormField, input: string, key: Key): boolean => {
    if (!getSelected()) return false;
    setSelected(false);
    const empty = { text: '', caret: 0 };
    if (key.backspace || key.delete) store(field, { ...empty, clipped: false });
    else if (typesText(input, key)) store(field, editLine(empty, input, key, limitOf(field)));
    else return false;
    return true;
  };

  useInput(
    (input, key) => {
      if (key.escape) return p.onDone(null);
      const raw = getRaw();
      const focus = getFocus();
      const field = p.fields[focus];
      setCandidates(null);
      if (key.return) {
        const r = parseForm(p.fields, raw);
        if (Object.keys(r.errors).length === 0) return p.onDone(r.values);
        setErrors(r.errors);
        setRefused((n) => n + 1);
        setCaret(null);
        setSelected(false);
        setFocus(p.fields.findIndex((f) => r.errors[f.name]));
        return;
      }
      const move = (d: number) => {
        const next = (focus + d + p.fields.length) % p.fields.length;
        setClipped(null);
        setCaret(null);
        setSelected(selectedIn(next, raw));
        setFocus(next);
      };
      if (key.tab && !key.shift && field?.kind === 'text' && field.complete) {
        const typed = raw[field.name] ?? '';
        void field.complete(typed).then((c) => {
          // a key typed meanwhile wins over the completion
          if (getFocus() !== focus || (getRaw()[field.name] ?? '') !== typed) return;
          store(field, { text: c.text, caret: [...c.text].length, clipped: false });
          setCandidates(c.candidates.length ? c.candidates : null);
        });
        return;
      }
      if (key.tab) return move(key.shift ? -1 : 1);
      if (key.upArrow) return move(-1);
      if (key.downArrow) return move(1);
      if (!field) return;
      if (field.kind === 'select') {
        const i = field.options.findIndex((o) => o.value === raw[field.name]);
        const d = key.leftArrow ? -1 : key.rightArrow || input === ' ' ? 1 : 0;
        if (d !== 0 && field.options.length) {
          const next = field.options[(i + d + field.options.length) % field.options.length].value;
          setRaw(withFollowers(p.fields, { ...raw, [field.name]: next }, field.name, typedInto.current));
        }
        return;
      }
      if (replaceSelected(field, input, key)) return;
      setSelected(false);
      store(field, editLine(lineOf(field), input, key, limitOf(field)));
    },
    { isActive: p.isActive },
  );
  usePaste(
    (text) => {
      const field = p.fields[getFocus()];
      if (!field || field.kind === 'select') return false;
      const line = pastedLine(text);
      const at = getSelected() ? { text: '', caret: 0 } : lineOf(field);
      if (line) store(field, pasteIntoLine(at, line, limitOf(field)));
      return true;
    },
    { isActive: p.isActive },
  );

  const focused = p.fields[focus];
  // a select's choice is its value changing under the focus: told too; typing is not
  const choice = focused?.kind === 'select' ? raw[focused.name] : null;
  const { onStatus } = p;
  useEffect(() => {
    onStatus?.({ focus, value: getRaw()[p.fields[focus]?.name ?? ''] ?? '', errors: getErrors(), refused });
  }, [onStatus, focus, choice, refused, getRaw, getErrors, p.fields]);

  const w = innerWidth(p.width);
  const completes = focused?.kind === 'text' && focused.complete !== undefined;
  const footer = `${completes ? 'Tab completes · Shift-Tab/↑↓ move' : 'Tab/↑↓ move'} · Enter ${p.submitLabel ?? 'submit'} · Esc cancel`;
  const message = lines(p.message).flatMap((l) => wrapText(sanitize(l, 500), w));
  // A field is one line, two with its hint (the focused one), its completions, an error or a clip note; the frame takes 6.
  const heights = p.fields.map((f, i) =>
    errors[f.name] || (i === focus && (candidates || clipped === f.name || f.hint)) ? 2 : 1,
  );
  const shownFields = fieldWindow(heights, focus, Math.max(3, (p.height ?? 100) - 6 - message.length));
  const labelWidth = Math.min(24, Math.max(...p.fields.map((f) => f.label.length)) + 1);
  const valueWidth = Math.max(8, w - labelWidth - 4);
  return (
    <Frame title={p.title} width={p.width} footer={footer}>
      {message.map((l, i) => (
        <Text key={`m${i}`} wrap="truncate">
          {l}
        </Text>
      ))}
      {shownFields.first > 0 ? <Text dimColor> ↑ {shownFields.first} more</Text> : null}
      {p.fields.slice(shownFields.first, shownFields.last).map((f, n) => {
        const i = shownFields.first + n;
        const active = i === focus;
        const v = raw[f.name] ?? '';
        const shown =
          f.kind === 'select'
            ? `‹ ${f.options.find((o) => o.value === v)?.label ?? v} ›`
            : v === '' && f.kind === 'limit'
              ? 'unlimited'
              : v;
        const dim = f.kind === 'limit' && v === '';
        const typed = active && f.kind !== 'select' && !dim;
        const marked = typed && selected;
        return (
          <Box key={f.name} flexDirection="column">
            <Text wrap="truncate">
              <Text bold={active}>
                {active ? '› ' : '  '}
                {fit(f.label, labelWidth)}
              </Text>
              {marked ? (
                <Text inverse>{truncate(shown, valueWidth - 1)}</Text>
              ) : typed ? (
                <CaretText text={shown} caret={caret ?? [...shown].length} width={valueWidth} underline />
              ) : (
                <Text dimColor={dim} underline={active}>
                  {truncate(shown, valueWidth - 1)}
                </Text>
              )}
              {active && dim ? <Text inverse> </Text> : null}
            </Text>
            {active && candidates ? (
              <Text wrap="truncate"> {sanitize(candidates.join('  '), 2000)}</Text>
            ) : errors[f.name] ? (
              <Text color={colour('bad')} wrap="truncate">
                {' '}
                ✕ {f.label}: {errors[f.name]}
              </Text>
            ) : active && clipped === f.name ? (
              <Text color={colour('warn')} wrap="truncate">
                {' '}
                ▲ at most {limitOf(f)} characters: the rest was not added
              </Text>
            ) : active && f.hint ? (
              <Text dimColor wrap="truncate">
                {' '}
                {f.hint}
              </Text>
            ) : null}
          </Box>
        );
      })}
      {shownFields.last < p.fields.length ? <Text dimColor> ↓ {p.fields.length - shownFields.last} more</Text> : null}
    </Frame>
  );
}
