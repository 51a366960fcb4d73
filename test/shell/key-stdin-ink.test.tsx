import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import React from 'react';
import { render, Text, useInput, type Key } from 'ink';
import { inkNamesKey, KeyStdin, splitKeys } from '../../src/dashboard/terminal/key-stdin.js';
import { until } from '../helpers/until.js';
import { KEYS_INK_CANNOT_NAME, ttyStdin } from '../helpers/tty-stdin.js';

/**
 * Every family of escape sequence a terminal can send, through KeyStdin's splitting and
 * filtering and then Ink 6.8's own input path (its input parser, parse-keypress and useInput):
 * no key may crash Ink (Ctrl+F1 `ESC[1;5P` used to: useInput reads the name of a key it does not
 * know, undefined), nor reach a handler as typed text ("[25~").
 */

class SyncStdin extends EventEmitter {
  isTTY = true;
  #data: string | null = null;
  write(data: string) {
    this.#data = data;
    this.emit('readable');
  }
  read() {
    const d = this.#data;
    this.#data = null;
    return d;
  }
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

class NullStdout extends EventEmitter {
  columns = 80;
  rows = 24;
  isTTY = true;
  write = () => true;
}

interface Call {
  input: unknown;
  key: Key;
}
const tick = () => new Promise<void>((r) => setImmediate(r));

function Probe({ calls }: { calls: Call[] }) {
  useInput((input, key) => {
    calls.push({ input, key });
  });
  return <Text>probe</Text>;
}

/** Ink rendering a handler that records every (input, key) it gets, fed by `stdin`. */
async function inkWith(stdin: EventEmitter) {
  const calls: Call[] = [];
  const instance = render(<Probe calls={calls} />, {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: new NullStdout() as unknown as NodeJS.WriteStream,
    stderr: new NullStdout() as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await tick();
  return { calls, unmount: () => instance.unmount() };
}

const MODIFIERS = ['', '2', '5', '1;2', '1;3', '1;4', '1;5', '1;6', '1;7', '1;8'];
const LETTERS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'];

/** The families: CSI and SS3 with every final letter and modifier, CSI n ~ $ ^, and the rest. */
function family(): string[] {
  const out: string[] = [];
  for (const m of MODIFIERS) for (const l of LETTERS) out.push(`\x1b[${m}${l}`, `\x1bO${m}${l}`);
  for (let n = 1; n <= 34; n++) for (const m of ['', ';2', ';3', ';5', ';6', ';8']) out.push(`\x1b[${n}${m}~`);
  for (let n = 1; n <= 8; n++) out.push(`\x1b[${n}$`, `\x1b[${n}^`);
  out.push(
    '\x1b[[A',
    '\x1b[[B',
    '\x1b[[C',
    '\x1b[[D',
    '\x1b[[E',
    '\x1b[[5~',
    '\x1b[[6~',
    '\x1b[[Z',
    // Alt + a sequence
    '\x1b\x1b[A',
    '\x1b\x1b[1;5P',
    '\x1b\x1bOP',
    '\x1b\x1b[25~',
    '\x1b\x1b[m',
    // kitty keyboard protocol (never enabled here), xterm modifyOtherKeys
    '\x1b[97u',
    '\x1b[97;5u',
    '\x1b[1;5:1P',
    '\x1b[57399u',
    '\x1b[27;5;13~',
    '\x1b[27;2;32~',
    // reports nothing asked for: focus, SGR and urxvt mouse, cursor position, device attributes
    '\x1b[I',
    '\x1b[O',
    '\x1b[<0;10;5M',
    '\x1b[<0;10;5m',
    '\x1b[32;10;5M',
    '\x1b[12;40R',
    '\x1b[?1;2c',
    '\x1b[>0;95;0c',
    // SGR (a program's output echoed back), and private parameters
    '\x1b[m',
    '\x1b[0m',
    '\x1b[31;1m',
    '\x1b[?25h',
    '\x1b[>1u',
  );
  for (let c = 0; c < 0x20; c++) out.push(`\x1b${String.fromCharCode(c)}`);
  out.push('\x1b\x7f');
  return out;
}

describe('escape sequences through KeyStdin and the real Ink input path', () => {
  it('no sequence crashes Ink or reaches a handler as text, and the keys Ink names still arrive', async () => {
    const stdin = new SyncStdin();
    const { calls, unmount } = await inkWith(stdin);
    const results = new Map<string, Call[]>();
    const crashes: string[] = [];
    for (const seq of family()) {
      const from = calls.length;
      for (const key of splitKeys(seq).filter(inkNamesKey)) {
        try {
          stdin.write(key);
        } catch (err) {
          crashes.push(`${JSON.stringify(seq)}: ${(err as Error).message}`);
        }
        await tick(); // Ink's pending Esc is flushed on the next turn
      }
      results.set(seq, calls.slice(from));
    }
    unmount();
    expect(crashes).toEqual([]);

    const junk = [...results].filter(([, cs]) =>
      cs.some((c) => typeof c.input !== 'string' || [...(c.input as string)].length > 1),
    );
    expect(junk.map(([s]) => s)).toEqual([]);
    // nothing printable comes out of a sequence (Esc + control character: Alt+Enter gives '\r')
    const typed = [...results].filter(([, cs]) => cs.some((c) => /^[\x20-\x7e\u00a0-\uffff]$/.test(c.input as string)));
    expect(typed.map(([s]) => s)).toEqual([]);

    const one = (seq: string) => {
      const cs = results.get(seq)!;
      expect(cs, JSON.stringify(seq)).toHaveLength(1);
      return cs[0].key;
    };
    const dropped = (seq: string) => expect(results.get(seq), JSON.stringify(seq)).toEqual([]);
    // what the audit found, and one of them after an Esc
    for (const seq of [...KEYS_INK_CANNOT_NAME, '\x1b\x1b[1;5P']) dropped(seq);
    // and what must keep working
    expect(one('\x1b[A').upArrow).toBe(true);
    expect(one('\x1b[1;5A')).toMatchObject({ upArrow: true, ctrl: true });
    expect(one('\x1b[1;2B')).toMatchObject({ downArrow: true, shift: true });
    expect(one('\x1bOD').leftArrow).toBe(true);
    expect(one('\x1b[H').home).toBe(true);
    expect(one('\x1b[4~').end).toBe(true);
    expect(one('\x1b[5;5~').pageUp).toBe(true);
    expect(one('\x1b[6~').pageDown).toBe(true);
    expect(one('\x1b[3~').delete).toBe(true);
    expect(one('\x1b[Z')).toMatchObject({ tab: true, shift: true });
    expect(one('\x1b\x1b[A')).toMatchObject({ upArrow: true, meta: true });
    expect(one('\x1b\r').return).toBe(true);
    expect(one('\x1b\x7f').delete).toBe(true);
    for (const fkey of ['\x1bOP', '\x1b[15~', '\x1b[24;5~', '\x1b[[A'])
      expect(results.get(fkey), JSON.stringify(fkey)).toHaveLength(1);
  });

  it('Esc followed by a key in one read is Esc, then that key (not Alt+key)', async () => {
    const stdin = new SyncStdin();
    const { calls, unmount } = await inkWith(stdin);
    for (const key of splitKeys('\x1bq\x1b\x1b\x1b?')) {
      stdin.write(key);
      await tick();
    }
    unmount();
    expect(calls.map((c) => (c.key.escape ? 'Esc' : c.input))).toEqual(['Esc', 'q', 'Esc', 'Esc', 'Esc', '?']);
    expect(calls.filter((c) => c.input === 'q' || c.input === '?').every((c) => !c.key.meta)).toBe(true);
  });

  it('KeyStdin in front of Ink: the keys the audit found do nothing, the keys around them arrive', async () => {
    const real = ttyStdin();
    const { calls, unmount } = await inkWith(new KeyStdin(real as unknown as NodeJS.ReadStream));
    // one read each, as tmux send-keys C-F1 … sends them; then all in one burst
    const found = ['\x1b[1;5P', '\x1b[1;5Q', '\x1b[1;5R', '\x1b[1;5S', '\x1b[1;6S', '\x1b[25~', '\x1b[29~', '\x1b[m'];
    for (const seq of found) {
      real.emit('data', seq);
      await tick();
    }
    real.emit('data', `a${found.join('')}b\x1b[B`);
    // the last key arrives last: whatever the found ones gave would be in by then
    await until('the down arrow', () => calls.some((c) => c.key.downArrow));
    unmount();
    expect(calls.map((c) => (c.key.downArrow ? 'down' : c.input))).toEqual(['a', 'b', 'down']);
  });
});
