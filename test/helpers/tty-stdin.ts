import { EventEmitter } from 'node:events';

/**
 * A terminal's stdin as KeyStdin (src/dashboard/terminal/key-stdin.ts) reads it: each
 * `emit('data', text)` is one read, and `paused` says whether KeyStdin has paused it.
 */
export function ttyStdin() {
  return Object.assign(new EventEmitter(), {
    isTTY: true,
    paused: false,
    setRawMode() {},
    setEncoding() {},
    ref() {},
    unref() {},
    pause() {
      this.paused = true;
    },
    resume() {
      this.paused = false;
    },
  });
}

/** Keys Ink cannot name, as the audit found them: Ctrl+F1-F4, Ctrl+Shift+F4, F13+ (Shift+F1-F4 on some terminals), SGR. */
export const KEYS_INK_CANNOT_NAME = [
  '\x1b[1;5P',
  '\x1b[1;5Q',
  '\x1b[1;5R',
  '\x1b[1;5S',
  '\x1b[1;6S',
  '\x1b[1;2P',
  '\x1b[25~',
  '\x1b[29~',
  '\x1b[m',
];
