import { describe, expect, it } from 'vitest';
import React from 'react';
import { render } from 'ink-testing-library';
import { FormDialog } from '../../src/dashboard/widgets/dialogs/FormDialog.js';
import { ConfirmDialog } from '../../src/dashboard/widgets/dialogs/ConfirmDialog.js';
import { MessageDialog } from '../../src/dashboard/widgets/dialogs/MessageDialog.js';
import { PickerDialog } from '../../src/dashboard/widgets/dialogs/PickerDialog.js';
import type { FormField, FormValues } from '../../src/dashboard/kit/dialog-specs.js';
import { afterKey, frameWith } from '../helpers/ink.js';
import { until } from '../helpers/until.js';

async function keys(stdin: { write(s: string): void }, ...seq: string[]) {
  for (const k of seq) {
    stdin.write(k);
    await afterKey();
  }
}

const fields: FormField[] = [
  { kind: 'text', name: 'name', label: 'Name', required: true },
  { kind: 'limit', name: 'rpm', label: 'Requests / minute', initial: 10 },
  {
    kind: 'select',
    name: 'bucket',
    label: 'Bucket',
    options: [
      { value: 'hour', label: 'per hour' },
      { value: 'day', label: 'per day' },
    ],
  },
];

describe('Form dialog', () => {
  it('moves with Tab/Shift-Tab, cycles a select, validates, and submits typed values', async () => {
    let result: FormValues | null | undefined;
    const { lastFrame, stdin, unmount } = render(
      <FormDialog title="T" fields={fields} width={80} isActive onDone={(v) => (result = v)} />,
    );
    await keys(stdin, '\r'); // name is required
    await frameWith(lastFrame, '✕ Name: required');
    expect(result).toBeUndefined();
    await keys(stdin, 'b', 'o', 't', '\t', '\x7f', '\x7f', '\t', '\x1b[C', '\x1b[Z', '7', '\r');
    await until('the form submitted', () => result !== undefined);
    expect(result).toEqual({ name: 'bot', rpm: 7, bucket: 'day' });
    unmount();
  });

  it('empty means unlimited, Esc cancels', async () => {
    let result: FormValues | null | undefined;
    const one = render(<FormDialog title="T" fields={[fields[1]]} width={80} isActive onDone={(v) => (result = v)} />);
    await keys(one.stdin, '\x7f', '\x7f');
    await frameWith(one.lastFrame, 'unlimited');
    await keys(one.stdin, '\r');
    await until('the form submitted', () => result !== undefined);
    expect(result).toEqual({ rpm: null });
    one.unmount();
    const two = render(<FormDialog title="T" fields={fields} width={80} isActive onDone={(v) => (result = v)} />);
    await keys(two.stdin, 'x', '\x1b');
    await until('Esc to cancel', () => result === null); // Ink holds a lone Esc for a moment
    two.unmount();
  });

  it('a long form in a short terminal shows the fields around the focus', async () => {
    const many: FormField[] = Array.from({ length: 12 }, (_, i) => ({
      kind: 'limit',
      name: `f${i}`,
      label: `Field ${i}`,
    }));
    const { lastFrame, stdin, unmount } = render(
      <FormDialog title="T" fields={many} width={80} height={16} isActive onDone={() => {}} />,
    );
    expect(lastFrame()).toContain('Field 0');
    expect(lastFrame()).not.toContain('Field 11');
    expect(lastFrame()).toMatch(/↓ \d+ more/);
    await keys(stdin, ...Array(11).fill('\t'));
    const f = await frameWith(lastFrame, '› Field 11');
    expect(f).toMatch(/↑ \d+ more/);
    expect(f.split('\n').length).toBeLessThanOrEqual(16);
    unmount();
  });
});

describe('Confirm dialog', () => {
  it('starts on Cancel: Enter alone says no; → then Enter says yes', async () => {
    const answers: boolean[] = [];
    const a = render(
      <ConfirmDialog title="Delete?" message="really" width={80} isActive onDone={(ok) => answers.push(ok)} />,
    );
    expect(a.lastFrame()).toContain('› [ Cancel ]');
    await keys(a.stdin, '\r');
    a.unmount();
    const b = render(
      <ConfirmDialog title="Delete?" message="really" width={80} isActive onDone={(ok) => answers.push(ok)} />,
    );
    await keys(b.stdin, '\x1b[C', '\r');
    b.unmount();
    expect(answers).toEqual([false, true]);
  });
});

/** A message dialog of 60 columns drawn once: its lines inside the frame, the frame's edges taken off. */
function messageBody(title: string, lines: string[]): string[] {
  const { lastFrame } = render(
    <MessageDialog title={title} lines={lines} width={60} height={24} isActive={false} onDone={() => undefined} />,
  );
  return lastFrame()!
    .split('\n')
    .map((l) => l.replace(/^\s*│ ?/, '').replace(/ *│\s*$/, ''));
}

describe('Message dialog', () => {
  it('wraps JSON details after its commas and colons, never inside a word; a token wider than the line still breaks', () => {
    const quota = { requests_per_minute: 120, tokens_per_minute: 400000, tokens_per_day: 9000000 };
    const long = 'x'.repeat(90);
    const body = messageBody('Quota set', [`    quota: ${JSON.stringify(quota)}`, long]);
    // every line of the JSON ends at a break the text offers
    const json = body.filter((l) => /quota|_per_|\d/.test(l));
    expect(json.length).toBeGreaterThan(1);
    for (const l of json.slice(0, -1)) expect(l).toMatch(/[,:{]$/);
    // continued under its key, past the line's own indent
    for (const l of json.slice(1)) expect(l).toMatch(/^ {6}\S/);
    expect(json.join('').replace(/\s/g, '')).toContain(JSON.stringify(quota));
    expect(
      body
        .filter((l) => /^ *x+$/.test(l))
        .map((l) => l.trim())
        .join(''),
    ).toBe(long);
  });

  it('an indented value longer than the line keeps its indent and every character (a path under its label)', () => {
    const path = `/tmp/${'d'.repeat(40)}/trail.csv.checkpoint.json`;
    const body = messageBody('Export written', ['checkpoint', `        ${path} (signed statement)`]);
    const at = body.indexOf('checkpoint');
    const value = body.slice(at + 1).filter((l) => l.trim() && !/Enter|─/.test(l));
    expect(value[0]).toMatch(/^ {8}\/tmp\/d/);
    for (const l of value.slice(1)) expect(l).toMatch(/^ {10}\S/);
    expect(value.join('').replace(/\s/g, '')).toBe(`${path}(signedstatement)`);
  });
});

describe('Picker dialog', () => {
  it('wraps its message at the words, no line of it starting with the space it broke at', async () => {
    // 72 columns inside the frame at 80: "…; Esc goes back" fills the first line exactly
    const message =
      "all time, no other filters. Enter lists a group's entries; Esc goes back to the list, and further words.";
    const { lastFrame, unmount } = render(
      <PickerDialog
        title="Groups"
        message={message}
        items={[{ label: 'a' }]}
        width={80}
        height={20}
        isActive
        onDone={() => undefined}
      />,
    );
    const f = await frameWith(lastFrame, 'Groups');
    const box = f.split('\n').map((l) => /│ (.*?)\s*│$/.exec(l)?.[1] ?? null);
    const said = box.filter((l): l is string => l !== null && l !== '' && !l.includes('› a'));
    expect(said.join(' ')).toContain(message);
    for (const l of said) expect(l, `"${l}"`).not.toMatch(/^ /);
    unmount();
  });
});

describe('Picker dialog height', () => {
  it('a message of several lines takes room from the list, not the frame: the box still closes within its height', async () => {
    const message =
      'Now: follows active (effective llama-3.1-8b-instruct). Only models present on the appliance are listed.';
    const items = Array.from({ length: 10 }, (_, i) => ({ label: `model ${i}` }));
    const { lastFrame, unmount } = render(
      <PickerDialog
        title="Route"
        message={message}
        items={items}
        width={40}
        height={14}
        isActive
        onDone={() => undefined}
      />,
    );
    const f = await frameWith(lastFrame, 'Route');
    const lines = f.split('\n');
    expect(lines.length).toBeLessThanOrEqual(14);
    expect(lines.at(-1)).toMatch(/^\s*╰─+╯$/);
    expect(f).toMatch(/more below/);
    unmount();
  });
});
