import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { useStdout } from 'ink';

/**
 * The time of this render, for "updated 4 s ago" and countdowns: the component renders again
 * when `ms` pass without any other render. A clock on its own interval would draw a frame of its
 * own every second, and a key landing just after it would wait for Ink's next frame slot (up to
 * 1000/maxFps ms: the key-to-frame p99 in docs/performance.md); while keys or answers redraw
 * the screen anyway, each of those frames shows the current time.
 */
export function useNow(ms = 1000): number {
  const [, tick] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const t = setTimeout(tick, ms);
    return () => clearTimeout(t);
  });
  return Date.now();
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
