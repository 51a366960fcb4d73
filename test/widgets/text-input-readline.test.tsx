import { describe, expect, it } from 'vitest';
import React, { useState } from 'react';
import { render } from 'ink-testing-library';
import { TextInput } from '../../src/dashboard/widgets/TextInput.js';
import { FormDialog } from '../../src/dashboard/widgets/dialogs/FormDialog.js';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { afterKey } from '../helpers/ink.js';
import { until } from '../helpers/until.js';

const suite = setupScreenSuite();

const CTRL = (c: string) => String.fromCharCode(c.charCodeAt(0) - 96);

/** A field holding `initial`, caret at its end; what it holds after each key is `value()`. */
function field(initial: string) {
  let current = initial;
  function Host() {
    const [v, setV] = useState(initial);
    return (
      <TextInput
        value={v}
        onChange={(x) => {
          current = x;
          setV(x);
        }}
        isActive
        width={60}
      />
    );
  }
  const r = render(<Host />);
  return {
    async keys(...seq: string[]) {
      for (const k of seq) {
        r.stdin.write(k);
        await afterKey();
      }
    },
    value: () => current,
    frame: () => r.lastFrame() ?? '',
    unmount: r.unmount,
  };
}

describe('text fields edit like readline', () => {
  it('Ctrl-U kills to the start of the line: what follows the caret stays', async () => {
    const f = field('alpha beta');
    await f.keys(CTRL('u'));
    expect(f.value()).toBe('');
    await f.keys('gamma delta', '\x1bb', CTRL('u'));
    expect(f.value()).toBe('delta');
    f.unmount();
  });

  it('Ctrl-W kills back to the space before the caret (a whole path), with the spaces after it', async () => {
    const f = field('export to /tmp/audit');
    await f.keys(CTRL('w'));
    expect(f.value()).toBe('export to ');
    await f.keys(CTRL('w'));
    expect(f.value()).toBe('export ');
    await f.keys('\x1bb', CTRL('w'));
    expect(f.value()).toBe('export ');
    await f.keys(CTRL('e'), CTRL('w'));
    expect(f.value()).toBe('');
    f.unmount();
  });

  it('Ctrl-A goes to the start and Ctrl-E to the end: typing goes in there', async () => {
    const f = field('middle');
    await f.keys(CTRL('a'), '<');
    expect(f.value()).toBe('<middle');
    await f.keys(CTRL('e'), '>');
    expect(f.value()).toBe('<middle>');
    f.unmount();
  });

  it('Alt-B and Alt-F (ESC b, ESC f) move a word back and forward', async () => {
    const f = field('one two three');
    await f.keys('\x1bb', '\x1bb', '_');
    expect(f.value()).toBe('one _two three');
    await f.keys('\x1bf', '!');
    expect(f.value()).toBe('one _two! three');
    f.unmount();
  });

  it('Ctrl-K kills from the caret to the end; ← and Backspace edit in the middle', async () => {
    const f = field('keep-drop');
    await f.keys('\x1bb', CTRL('k'));
    expect(f.value()).toBe('keep-');
    await f.keys('\x1b[D', '\x7f');
    expect(f.value()).toBe('kee-');
    f.unmount();
  });

  it('a form field edits the same way (one implementation)', async () => {
    let done: unknown;
    const r = render(
      <FormDialog
        title="T"
        fields={[{ kind: 'text', name: 'path', label: 'File', initial: './audit.csv' }]}
        width={80}
        isActive
        onDone={(v) => (done = v)}
      />,
    );
    for (const k of [CTRL('a'), '\x1bf', CTRL('k'), '.jsonl', CTRL('a'), CTRL('u'), '\r']) {
      r.stdin.write(k);
      await afterKey();
    }
    await until('the form submitted', () => done !== undefined);
    expect(done).toEqual({ path: './audit.jsonl' });
    r.unmount();
  });

  it('in the dashboard, the / filter and the : command line take the keys, not the shell', async () => {
    const d = suite.render({ screen: 'keys' });
    await d.waitForText('[keys]');
    await d.press('/');
    await d.type('alpha beta');
    await d.write(CTRL('w'));
    await d.type('gamma');
    await d.write(CTRL('a'));
    await d.type('>');
    await d.waitFor((f) => f.includes('>alpha gamma'), 'the filter edited at its start');
    await d.press('esc');
    await d.press(':');
    await d.type('xx keys');
    await d.write('\x1bb');
    await d.write(CTRL('u'));
    await d.press('enter');
    // "xx " was killed: the command was "keys", not an unknown screen
    await d.waitFor((f) => f.includes('[keys]') && !f.includes('no screen'), 'the keys screen');
    expect(d.frame()).not.toContain('xx keys');
  });
});
