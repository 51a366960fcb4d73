import { describe, expect, it } from 'vitest';
import React from 'react';
import { render } from 'ink-testing-library';
import { FormDialog } from '../../src/dashboard/widgets/dialogs/FormDialog.js';
import { parseField } from '../../src/dashboard/widgets/dialogs/form-model.js';
import { charCount, pastedLine } from '../../src/dashboard/widgets/dialogs/edit.js';
import { editLine, lineAtEnd, pasteIntoLine } from '../../src/dashboard/widgets/line-edit.js';
import { truncateStart, widthOf } from '../../src/dashboard/kit/text.js';
import { DisplayName } from '../../src/contract/common.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import type { FormField, FormValues } from '../../src/dashboard/kit/dialog-specs.js';
import { afterKey, frameWith } from '../helpers/ink.js';
import { until } from '../helpers/until.js';

async function typeEach(stdin: { write(s: string): void }, text: string) {
  for (const ch of text) {
    stdin.write(ch);
    await afterKey();
  }
}

// the key form's fields: a Name of at most 64, and labels long enough to leave it ~53 columns at 80
const fields: FormField[] = [
  { kind: 'text', name: 'name', label: 'Name', required: true, maxLength: 64, hint: 'who or what will use the key' },
  { kind: 'limit', name: 'rpm', label: 'Requests / minute' },
];
const nameLine = (f: string) => f.split('\n').find((l) => l.includes('Name ')) ?? '';
const noKey = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

describe('a long value in a form field', () => {
  it('shows its end, where the typing is, after a leading …; the other fields show their start', async () => {
    const name = `${'a'.repeat(40)}0123456789ENDofNAME!!`; // 61 characters
    const { lastFrame, stdin, unmount } = render(
      <FormDialog title="Create a gateway key" fields={fields} width={80} isActive onDone={() => {}} />,
    );
    await typeEach(stdin, name);
    const line = nameLine(await frameWith(lastFrame, (f) => nameLine(f).includes('ENDofNAME!!'), 'the name typed'));
    expect(line).toContain('…');
    expect(line).toMatch(/…a+0123456789ENDofNAME!! /);
    // away from the field, its start shows again
    stdin.write('\t');
    await frameWith(lastFrame, (f) => /Name\s+a{20,}.*…/.test(nameLine(f)), 'the start of the name');
    unmount();
  });

  it('says so when the limit cut what was typed, until the next edit fits', async () => {
    const { lastFrame, stdin, unmount } = render(
      <FormDialog title="T" fields={fields} width={80} isActive onDone={() => {}} />,
    );
    await typeEach(stdin, 'x'.repeat(64));
    expect(lastFrame()).not.toContain('at most 64 characters');
    await typeEach(stdin, 'yz');
    expect(nameLine(await frameWith(lastFrame, '▲ at most 64 characters'))).not.toMatch(/[yz]/);
    stdin.write('\x7f');
    // the field's hint is back in the note's place
    const f = await frameWith(lastFrame, 'who or what will use the key');
    expect(f).not.toContain('at most 64 characters');
    unmount();
  });
});

describe('the length limit counts as the appliance does', () => {
  // zod 4 (the contract) counts a string's max in code points: 64 emoji are a valid name
  it('the contract: 64 emoji are a valid DisplayName, 65 are not', () => {
    expect(DisplayName.safeParse('🙂'.repeat(64)).success).toBe(true);
    expect(DisplayName.safeParse('🙂'.repeat(65)).success).toBe(false);
  });

  it('the form: accepts what the contract accepts, refuses what it refuses, and typing stops at the same count', async () => {
    const f = fields[0];
    expect(parseField(f, '🙂'.repeat(33))).toEqual({ value: '🙂'.repeat(33) });
    expect(parseField(f, '🙂'.repeat(64))).toEqual({ value: '🙂'.repeat(64) });
    expect(parseField(f, '🙂'.repeat(65))).toEqual({ error: 'at most 64 characters' });
    expect(editLine(lineAtEnd('🙂'.repeat(64)), '🙂', noKey, 64)?.text).toBe('🙂'.repeat(64));
    expect(charCount('🙂é')).toBe(2);

    let result: FormValues | null | undefined;
    const { lastFrame, stdin, unmount } = render(
      <FormDialog title="T" fields={fields} width={80} isActive onDone={(v) => (result = v)} />,
    );
    await typeEach(stdin, '🙂'.repeat(66));
    await frameWith(lastFrame, 'at most 64 characters');
    stdin.write('\r');
    await until('the form submitted', () => result !== undefined);
    expect(result).toEqual({ name: '🙂'.repeat(64), rpm: null });
    unmount();
  });
});

describe('pasted text in a field', () => {
  it('becomes one line: breaks and tabs are spaces, a trailing break goes, controls and escapes are removed', () => {
    expect(pastedLine('ops-bot-7\rowner: finance team\r')).toBe('ops-bot-7 owner: finance team');
    expect(pastedLine('\r\na\r\nb\tc\x1b[31md\x07\x00e\n')).toBe('a b cde');
    expect(pasteIntoLine(lineAtEnd('ab'), pastedLine('cdef'), 4)).toEqual({ text: 'abcd', caret: 4, clipped: true });
    expect(pastedLine('\r\n')).toBe('');
  });
});

describe('truncateStart', () => {
  it('keeps whole graphemes at the end, within the width', () => {
    expect(truncateStart('abcdef', 10)).toBe('abcdef');
    expect(truncateStart('abcdef', 4)).toBe('…def');
    const family = '👨‍👩‍👧';
    const cut = truncateStart(`xxxxxxxx${family}e\u0301`, 5);
    expect(cut.endsWith(`${family}e\u0301`)).toBe(true);
    expect(widthOf(cut)).toBeLessThanOrEqual(5);
  });
});

describe('the key form on the real server', () => {
  const suite = setupScreenSuite();
  it('creates a key named with 33 emoji (66 UTF-16 units, 33 characters)', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitFor((f) => /updated (?:just now|\d+ s ago)/.test(f), 'the keys screen');
    await d.press('n');
    await d.waitForText('Create a gateway key');
    await d.type('🙂'.repeat(33));
    await d.press('enter');
    await d.waitForText('will not be shown again');
    expect(d.frame()).not.toContain('at most 64 characters');
    expect(suite.db.prepare('SELECT name FROM gateway_keys WHERE name = ?').get('🙂'.repeat(33))).toBeDefined();
  });
});
