import { EventEmitter } from 'node:events';

const ESC = '\x1b';
const KEY_GAP_MS = 4;

/**
 * Splits terminal input into single keys: one character, or one whole escape sequence
 * (CSI `ESC [ … final`, SS3 `ESC O x`, meta `ESC x`).
 */
export function splitKeys(s: string): string[] {
  const keys: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] !== ESC) {
      const cp = s.codePointAt(i)!;
      const len = cp > 0xffff ? 2 : 1;
      keys.push(s.slice(i, i + len));
      i += len;
      continue;
    }
    let j = i + 1;
    if (s[j] === ESC) j++; // ESC ESC [A: meta + arrow
    if (s[j] === '[') {
      j++;
      if (s[j] === '[') j++; // legacy ESC [ [ A
      while (j < s.length && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x3f) j++;
      j = Math.min(s.length, j + 1);
    } else if (s[j] === 'O') {
      j = Math.min(s.length, j + 2);
    } else if (j < s.length) {
      j++;
    }
    keys.push(s.slice(i, j));
    i = j;
  }
  return keys;
}

/**
 * The terminal's stdin as Ink reads it, but handing over ONE key per read, a few ms apart.
 * Ink passes a burst (fast typing, a paste, tmux send-keys) on as one string, and a key that
 * opens the command line or a dialog would otherwise take the rest of the burst with it, before
 * the component that should receive it has mounted.
 */
export class KeyStdin extends EventEmitter {
  readonly isTTY: boolean;
  #queue: string[] = [];
  #current: string | null = null;
  #pumping = false;
  #listening = false;

  constructor(private readonly real: NodeJS.ReadStream) {
    super();
    this.isTTY = Boolean(real.isTTY);
  }

  readonly #onData = (chunk: string | Buffer) => {
    this.#queue.push(...splitKeys(typeof chunk === 'string' ? chunk : chunk.toString('utf8')));
    this.#pump();
  };

  #pump() {
    if (this.#pumping) return;
    this.#pumping = true;
    const next = () => {
      const key = this.#queue.shift();
      if (key === undefined) {
        this.#pumping = false;
        return;
      }
      this.#current = key;
      this.emit('readable');
      // React renders the key's update in a microtask but attaches a newly mounted
      // component's input handler (useInput's effect) in a later macrotask; give it that time.
      setTimeout(next, KEY_GAP_MS);
    };
    next();
  }

  read(): string | null {
    const k = this.#current;
    this.#current = null;
    return k;
  }

  setEncoding(enc: BufferEncoding) {
    this.real.setEncoding(enc);
    return this;
  }

  setRawMode(on: boolean) {
    this.real.setRawMode?.(on);
    if (on && !this.#listening) {
      this.#listening = true;
      this.real.on('data', this.#onData);
      this.real.resume(); // after an explicit pause(), a 'data' listener alone does not resume
    } else if (!on && this.#listening) {
      this.#listening = false;
      this.real.off('data', this.#onData);
      this.real.pause();
    }
    return this;
  }

  ref() {
    this.real.ref();
    return this;
  }

  unref() {
    this.real.unref();
    return this;
  }
}
