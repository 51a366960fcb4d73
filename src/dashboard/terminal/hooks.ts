import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { useStdout } from 'ink';

/**
 * The time of this render, for "updated 4 s ago" and countdowns. Every `ms` the clock reads
 * `words(now)`, what the time changes on screen, and renders again only when those words changed:
 * a frame whose text is the same as the last one is not drawn at all (idle, the dashboard's frames
 * are its main cost: docs/performance.md). `words` is read at the clock's tick, so it must read
 * what it needs at that time (a store's state), not a render's copy of it. A clock on its own
 * interval would also draw a frame of its own every second, and a key landing just after it would
 * wait for Ink's next frame slot (up to 1000/maxFps ms: the key-to-frame p99 in
 * docs/performance.md); while keys or answers redraw the screen anyway, each of those frames shows
 * the current time.
 */
export function useNowWhen(words: (now: number) => string, ms = 1000): number {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  const now = Date.now();
  useEffect(() => {
    // what this render said; any render (a key, an answer) starts the clock again from it
    const last = words(now);
    let t: ReturnType<typeof setTimeout>;
    const check = () => {
      if (words(Date.now()) !== last) tick();
      else t = setTimeout(check, ms);
    };
    t = setTimeout(check, ms);
    return () => clearTimeout(t);
  });
  return now;
}

export interface TerminalSize {
  columns: number;
  rows: number;
}

/** The terminal size, following resizes. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const read = (): TerminalSize => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [stdout]);
  return size;
}

/**
 * State whose latest value is readable at once. Ink calls an input handler for each key, and
 * a second key can arrive before React re-renders with the first one's update; handlers that
 * read this render's state would then lose keys (typing "ab" fast would give "b").
 */
export function useLiveState<T>(initial: T | (() => T)): [T, (next: T | ((prev: T) => T)) => void, () => T] {
  const [value, setValue] = useState(initial);
  const ref = useRef(value);
  const set = useCallback((next: T | ((prev: T) => T)) => {
    ref.current = typeof next === 'function' ? (next as (p: T) => T)(ref.current) : next;
    setValue(ref.current);
  }, []);
  const get = useCallback(() => ref.current, []);
  return [value, set, get];
}
