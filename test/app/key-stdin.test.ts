import { describe, expect, it } from 'vitest';
import { EventEmitter } from 'node:events';
import { KeyStdin, splitKeys } from '../../src/app/key-stdin.js';

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
    const real = Object.assign(new EventEmitter(), {
      isTTY: true, paused: false,
      setRawMode() {}, setEncoding() {}, ref() {}, unref() {},
      pause() { this.paused = true; }, resume() { this.paused = false; },
    });
    const k = new KeyStdin(real as unknown as NodeJS.ReadStream);
    const reads: string[] = [];
    k.on('readable', () => {
      let c;
      while ((c = k.read()) !== null) reads.push(c);
    });
    k.setRawMode(true);
    real.emit('data', 'ab\x1b[B');
    await new Promise((r) => setTimeout(r, 50));
    expect(reads).toEqual(['a', 'b', '\x1b[B']);
    k.setRawMode(false);
    expect(real.paused).toBe(true);
    k.setRawMode(true);
    expect(real.paused).toBe(false);
  });
});
