import { until } from './until.js';

/**
 * Waits one event-loop turn after a key written to an Ink app, before the next key or a look at
 * the frame: React commits the key's update at once, but attaches a newly mounted component's input
 * handler in a task its scheduler queued with setImmediate during that commit (the reason
 * src/dashboard/terminal/key-stdin.ts hands keys over one turn apart). That task, and no fixed time.
 */
export const afterKey = () => new Promise<void>((r) => setImmediate(r));

/**
 * Until the last frame passes `test` (a string it contains, a pattern it matches, or a predicate),
 * and returns it: Ink may draw a key's frame a moment after the key was handled.
 */
export async function frameWith(
  lastFrame: () => string | undefined,
  test: string | RegExp | ((frame: string) => boolean),
  what = String(test),
): Promise<string> {
  const ok = (f: string) =>
    typeof test === 'string' ? f.includes(test) : test instanceof RegExp ? test.test(f) : test(f);
  return until(`a frame with ${what}`, () => {
    const f = lastFrame() ?? '';
    return ok(f) ? f : null;
  });
}
