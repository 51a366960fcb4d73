import { EventEmitter } from 'node:events';
import { PASTE_IGNORED, type PasteHandler, type PasteSource } from './paste.js';

const ESC = '\x1b';
// Alt-B, Alt-F (ESC b, ESC f): readline's word moves; Ink names them meta+b, meta+f
const WORD_MOVES = new Set(['b', 'f']);
/** A sequence cut off at the end of a read waits this long for the rest of it. */
const CUT_SEQUENCE_WAIT_MS = 20;

/** Bracketed paste (run.tsx turns it on): the terminal wraps pasted text in these. */
export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';
/** A paste whose end marker never comes is handed over after this long without data. */
const PASTE_IDLE_MS = 2000;
/** More than any field takes; the rest of a giant paste is not kept. */
const MAX_PASTE_CHARS = 100_000;

const isPrintable = (ch: string) => {
  const c = ch.codePointAt(0)!;
  return c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0);
};
// CSI parameter and intermediate bytes
const isParamByte = (c: number) => c >= 0x20 && c <= 0x3f;
const isFinalByte = (c: number) => c >= 0x40 && c <= 0x7e;

/**
 * Splits terminal input into keys: one character, or one whole escape sequence (CSI `ESC [ …
 * final`, SS3 `ESC O … final`, optionally after a second ESC for Alt). An ESC before anything
 * that is not a sequence is the Esc key, and what follows is a key of its own: `ESC q` in one
 * read is Esc then q (tmux, or a slow link, batching the two), not Alt+q, which nothing binds;
 * ESC ESC is Esc twice. Only ESC + a control character (Alt+Enter, Alt+Backspace) and Alt-B / Alt-F
 * (readline's word moves) stay one key.
 * A sequence cut off by the end of `s` is returned in `rest`.
 */
function scanKeys(s: string): { keys: string[]; rest: string } {
  const keys: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] !== ESC) {
      const len = s.codePointAt(i)! > 0xffff ? 2 : 1;
      keys.push(s.slice(i, i + len));
      i += len;
      continue;
    }
    const j = i + 1;
    const intro = s[j] === ESC && (s[j + 1] === '[' || s[j + 1] === 'O') ? j + 1 : j;
    const c = s[intro];
    if (c === '[' || c === 'O') {
      let k = intro + 1;
      if (c === '[' && s[k] === '[') k++; // legacy ESC [ [ A
      while (k < s.length && isParamByte(s.charCodeAt(k))) k++;
      if (k >= s.length) return { keys, rest: s.slice(i) };
      if (isFinalByte(s.charCodeAt(k))) {
        keys.push(s.slice(i, k + 1));
        i = k + 1;
        continue;
      }
      // not a sequence after all: Esc, then the characters as typed
      keys.push(ESC);
      i = j;
      continue;
    }
    // Alt-B and Alt-F stay one key: readline's word moves in text fields (src/dashboard/widgets/line-edit.ts)
    if (WORD_MOVES.has(c)) {
      keys.push(s.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (c === undefined || c === ESC || isPrintable(c)) {
      keys.push(ESC);
      i = j;
      continue;
    }
    keys.push(s.slice(i, j + 1));
    i = j + 1;
  }
  return { keys, rest: '' };
}

/** A cut-off sequence that never got its end: `ESC [` or `ESC O` alone were Esc then that key; one with parameters is dropped. */
function flushCut(rest: string): string[] {
  const introAt = rest.startsWith(ESC + ESC) ? 2 : 1;
  if (rest.length !== introAt + 1) return [];
  return [...rest];
}

/** Every key of `s`, a cut-off sequence at its end included (see flushCut). */
export function splitKeys(s: string): string[] {
  const { keys, rest } = scanKeys(s);
  return rest ? keys.concat(flushCut(rest)) : keys;
}

// Escape sequences Ink 6.8 gives a name (node_modules/ink/build/parse-keypress.js, keyName).
// For any other one, useInput hands over garbage: the sequence's tail as typed text ("[25~"),
// or, with a Ctrl modifier, `undefined`, on which it crashes (Ctrl+F1 is `ESC [1;5P`).
const MODIFIER = '(?:1;\\d+|\\d+)?';
const NAMED_SEQUENCES = [
  new RegExp(`^\\[${MODIFIER}[A-FHZa-e]$`), // arrows, clear, end, home, Shift-Tab; rxvt Shift+arrows
  /^\[(?:[1-8]|1[1-57-9]|2[0134])(?:;\d+)?~$/, // home insert delete end pgup pgdn, F1-F12
  /^\[[235678](?:;\d+)?[$^]$/, // rxvt Shift/Ctrl + insert … end
  /^\[\[(?:[A-E]|[56]~)$/, // Cygwin/libuv F1-F5, PuTTY pgup/pgdn
  /^O[A-FHP-Sa-e]$/, // SS3 arrows, home, end, F1-F4 (Ink takes no modifier here)
];
// Ink names ESC + these as Alt+Enter, Alt+Backspace (DEL and BS)
const NAMED_ALT = new Set(['\r', '\x7f', '\b']);

/**
 * Whether Ink turns `key` (one of splitKeys) into a sane (input, key) pair. Everything else
 * (F13+, Ctrl/Shift+F1-F4, modifyOtherKeys, kitty, focus and mouse reports…) is dropped: an
 * unknown key does nothing, and never ends the dashboard.
 */
export function inkNamesKey(key: string): boolean {
  if (key[0] !== ESC || key === ESC) return true;
  const body = key[1] === ESC && key.length > 2 ? key.slice(2) : key.slice(1);
  if (body.length === 1) return NAMED_ALT.has(body) || WORD_MOVES.has(body);
  return NAMED_SEQUENCES.some((re) => re.test(body));
}

type Item = string | { paste: string };

/**
 * The terminal's stdin as Ink reads it, but handing over ONE key per read, a turn of the event loop apart.
 * Ink passes a burst (fast typing, tmux send-keys) on as one string, and a key that opens the
 * command line or a dialog would otherwise take the rest of the burst with it, before the
 * component that should receive it has mounted. Keys Ink cannot name are dropped (inkNamesKey).
 * A bracketed paste is not keys at all: it goes whole to the focused text field (usePaste), or
 * nowhere (PASTE_IGNORED), so its line breaks never act as Enter nor its letters as commands.
 */
export class KeyStdin extends EventEmitter implements PasteSource {
  readonly isTTY: boolean;
  #queue: Item[] = [];
  #current: string | null = null;
  #pumping = false;
  #listening = false;
  /** a sequence cut off at the end of the last read */
  #cut = '';
  #cutTimer: NodeJS.Timeout | undefined;
  /** the paste being received, or null outside a paste */
  #paste: string | null = null;
  #pasteTimer: NodeJS.Timeout | undefined;
  #pasteHandlers: PasteHandler[] = [];

  constructor(private readonly real: NodeJS.ReadStream) {
    super();
    this.isTTY = Boolean(real.isTTY);
  }

  onPaste(handler: PasteHandler): () => void {
    this.#pasteHandlers.push(handler);
    return () => {
      this.#pasteHandlers = this.#pasteHandlers.filter((h) => h !== handler);
    };
  }

  readonly #onData = (chunk: string | Buffer) => {
    clearTimeout(this.#cutTimer);
    let s: string | null = this.#cut + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    this.#cut = '';
    while (s) {
      if (this.#paste !== null) {
        s = this.#continuePaste(s);
        continue;
      }
      const start = s.indexOf(PASTE_START);
      const { keys, rest } = scanKeys(start < 0 ? s : s.slice(0, start));
      this.#addKeys(keys);
      if (start < 0) {
        if (rest) this.#holdCut(rest);
        break;
      }
      this.#addKeys(flushCut(rest));
      this.#paste = '';
      s = s.slice(start + PASTE_START.length);
    }
    this.#pump();
  };

  #addKeys(keys: string[]) {
    for (const k of keys) if (inkNamesKey(k)) this.#queue.push(k);
  }

  #holdCut(rest: string) {
    this.#cut = rest;
    this.#cutTimer = setTimeout(() => {
      const cut = this.#cut;
      this.#cut = '';
      this.#addKeys(flushCut(cut));
      this.#pump();
    }, CUT_SEQUENCE_WAIT_MS).unref();
  }

  /** Adds `s` to the paste; what follows the paste's end, or null while it goes on. */
  #continuePaste(s: string): string | null {
    clearTimeout(this.#pasteTimer);
    const sofar = this.#paste ?? '';
    // the end marker may have been split between two reads
    const overlap = Math.min(sofar.length, PASTE_END.length - 1);
    const probe = sofar.slice(sofar.length - overlap) + s;
    const end = probe.indexOf(PASTE_END);
    if (end < 0) {
      let next = sofar + s;
      // the tail stays, for an end marker split between reads
      if (next.length > MAX_PASTE_CHARS) next = next.slice(0, MAX_PASTE_CHARS) + next.slice(1 - PASTE_END.length);
      this.#paste = next;
      this.#pasteTimer = setTimeout(() => {
        this.#endPaste(this.#paste ?? '');
        this.#pump();
      }, PASTE_IDLE_MS).unref();
      return null;
    }
    this.#endPaste(sofar.slice(0, sofar.length - overlap) + probe.slice(0, end));
    return probe.slice(end + PASTE_END.length);
  }

  #endPaste(text: string) {
    this.#paste = null;
    this.#queue.push({ paste: text.slice(0, MAX_PASTE_CHARS) });
  }

  #deliverPaste(text: string) {
    for (const h of [...this.#pasteHandlers].reverse()) if (h(text)) return;
    this.emit(PASTE_IGNORED);
  }

  #pump() {
    if (this.#pumping) return;
    this.#pumping = true;
    const next = () => {
      const item = this.#queue.shift();
      if (item === undefined) {
        this.#pumping = false;
        return;
      }
      if (typeof item === 'string') {
        this.#current = item;
        this.emit('readable');
      } else {
        this.#deliverPaste(item.paste);
      }
      // React commits the key's update at once but attaches a newly mounted component's input
      // handler (useInput's effect) in a task its scheduler queued with setImmediate during that
      // commit: the next key waits for that task, and for nothing else (no fixed delay).
      setImmediate(next);
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
