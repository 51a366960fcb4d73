import { describe, expect, it, vi } from 'vitest';
import { KeyStdin, PASTE_END, PASTE_START, splitKeys } from '../../src/dashboard/terminal/key-stdin.js';
import { PASTE_IGNORED } from '../../src/dashboard/terminal/paste.js';
import { until } from '../helpers/until.js';
import { ttyStdin } from '../helpers/tty-stdin.js';

describe('KeyStdin', () => {
  it('splits a burst into single keys, keeping escape sequences whole', () => {
    expect(splitKeys(':keys\r')).toEqual([':', 'k', 'e', 'y', 's', '\r']);
    expect(splitKeys('\x1b[A\x1b[5~j\x1b[Z\x1bOH')).toEqual(['\x1b[A', '\x1b[5~', 'j', '\x1b[Z', '\x1bOH']);
    expect(splitKeys('\x1b')).toEqual(['\x1b']);
    expect(splitKeys('\x1b\x1b[B')).toEqual(['\x1b\x1b[B']);
    expect(splitKeys('a👍b')).toEqual(['a', '👍', 'b']);
    expect(splitKeys('\x7f\x03')).toEqual(['\x7f', '\x03']);
  });

  it('hands Ink one key per read, and resumes input after raw mode was switched off and on', async () => {
    const real = ttyStdin();
    const k = new KeyStdin(real as unknown as NodeJS.ReadStream);
    const reads: string[] = [];
    k.on('readable', () => {
      let c;
      while ((c = k.read()) !== null) reads.push(c);
    });
    k.setRawMode(true);
    real.emit('data', 'ab\x1b[B');
    await until('the three keys', () => reads.length >= 3);
    expect(reads).toEqual(['a', 'b', '\x1b[B']);
    k.setRawMode(false);
    expect(real.paused).toBe(true);
    k.setRawMode(true);
    expect(real.paused).toBe(false);
  });
});

describe('KeyStdin: Esc before a key, cut-off sequences', () => {
  it('Esc then a printable key in one read are two keys; Alt+Enter and Alt+Backspace stay one', () => {
    expect(splitKeys('\x1bq')).toEqual(['\x1b', 'q']);
    expect(splitKeys('\x1b\x1b')).toEqual(['\x1b', '\x1b']);
    expect(splitKeys('\x1b\x1bx')).toEqual(['\x1b', '\x1b', 'x']);
    expect(splitKeys('\x1b é')).toEqual(['\x1b', ' ', 'é']);
    expect(splitKeys('\x1b\r\x1b\x7f')).toEqual(['\x1b\r', '\x1b\x7f']);
    // Alt-B and Alt-F, readline's word moves in a text field
    expect(splitKeys('\x1bb\x1bf')).toEqual(['\x1bb', '\x1bf']);
    // ESC [ before something that cannot end a sequence: Esc, then the characters
    expect(splitKeys('\x1b[é')).toEqual(['\x1b', '[', 'é']);
    expect(splitKeys('\x1b[')).toEqual(['\x1b', '[']);
    expect(splitKeys('\x1bO')).toEqual(['\x1b', 'O']);
    // a sequence cut off with its parameters is dropped, not typed
    expect(splitKeys('a\x1b[1;5')).toEqual(['a']);
  });
});

describe('KeyStdin: bracketed paste', () => {
  function setup() {
    const real = ttyStdin();
    const k = new KeyStdin(real as unknown as NodeJS.ReadStream);
    const events: string[] = [];
    k.on('readable', () => {
      let c;
      while ((c = k.read()) !== null) events.push(`key ${JSON.stringify(c)}`);
    });
    k.on(PASTE_IGNORED, () => events.push('ignored'));
    k.setRawMode(true);
    return { real, k, events, send: (s: string) => real.emit('data', s) };
  }

  it('hands a paste whole to the newest handler that takes it, in order with the keys around it', async () => {
    const { k, events, send } = setup();
    k.onPaste((t) => (events.push(`old ${JSON.stringify(t)}`), true));
    const off = k.onPaste((t) => (events.push(`new ${JSON.stringify(t)}`), true));
    send(`:${PASTE_START}keys\rq\x1b[A${PASTE_END}\r`);
    await until('the key after the paste', () => events.length >= 3);
    expect(events).toEqual(['key ":"', `new ${JSON.stringify('keys\rq\x1b[A')}`, 'key "\\r"']);
    off();
    send(`${PASTE_START}x${PASTE_END}`);
    await until('the second paste', () => events.length >= 4);
    expect(events.at(-1)).toBe('old "x"');
  });

  it('a paste nothing takes is dropped and reported, never keys', async () => {
    const { k, events, send } = setup();
    k.onPaste(() => false); // e.g. a form whose focused field is a select
    send(`${PASTE_START}q\ri\r${PASTE_END}j`);
    await until('the key after the paste', () => events.length >= 2);
    expect(events).toEqual(['ignored', 'key "j"']);
  });

  it('markers split between reads, and a long paste across many reads, arrive as one paste', async () => {
    const { k, events, send } = setup();
    const pastes: string[] = [];
    k.onPaste((t) => (pastes.push(t), true));
    const text = 'x'.repeat(3000);
    const all = `a${PASTE_START}${text}${PASTE_END}b`;
    // cut at awkward places: inside both markers, and every 7 characters in between
    const cuts = [3, 5, 9, ...Array.from({ length: 420 }, (_, i) => 10 + i * 7), all.length - 4, all.length - 2];
    let at = 0;
    for (const c of cuts) {
      send(all.slice(at, c));
      at = c;
    }
    send(all.slice(at));
    // 420 reads take a while on a busy machine: wait for the keys; a key sent after them comes
    // next, so nothing else followed
    await until('the key after the paste', () => events.length >= 2, 3000);
    send('z');
    await until('the key sent last', () => events.length >= 3);
    expect(pastes).toEqual([text]);
    expect(events).toEqual(['key "a"', 'key "b"', 'key "z"']);
  });

  it('a paste whose end marker never comes is handed over after 2 s without data; keys work again', () => {
    // KeyStdin's own timers, moved by hand: 2 s of them take no time here
    vi.useFakeTimers();
    try {
      const { k, events, send } = setup();
      k.onPaste((t) => (events.push(`paste ${JSON.stringify(t)}`), true));
      send(`${PASTE_START}abc\r`);
      vi.advanceTimersByTime(1500);
      send('def');
      vi.advanceTimersByTime(1500);
      expect(events).toEqual([]); // 3 s since it began, 1.5 s without data
      vi.advanceTimersByTime(500);
      expect(events).toEqual([`paste ${JSON.stringify('abc\rdef')}`]);
      send('q');
      vi.runOnlyPendingTimers();
      expect(events.at(-1)).toBe('key "q"');
    } finally {
      vi.useRealTimers();
    }
  });

  it('3,000 pasted characters arrive at once, and an Esc right after is not held up behind them', async () => {
    const { k, events, send } = setup();
    const pastes: string[] = [];
    k.onPaste((t) => (pastes.push(t), true));
    const t0 = Date.now();
    send(`${PASTE_START}${'database\ringest now\r'.repeat(150)}${PASTE_END}`);
    send('\x1b');
    await until('the Esc', () => events.length >= 1);
    expect(pastes).toHaveLength(1);
    expect(pastes[0]).toHaveLength(3000);
    expect(events).toEqual(['key "\\u001b"']);
    expect(Date.now() - t0).toBeLessThan(200);
  });
});
