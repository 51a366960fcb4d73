import React from 'react';
import { render } from 'ink';
import { sanitize } from '../../text/sanitize.js';
import { App } from './App.js';
import { KeyStdin } from '../terminal/key-stdin.js';
import type { DashboardDeps } from './deps.js';
import { ScreenReaderApp } from './screen-reader/Announcer.js';
import { silentStdout } from '../terminal/silent-stdout.js';

/** How Ink draws frames (also used by the benchmarks in test/bench, which measure them). */
export const FRAME_OPTIONS = {
  // Ink draws at most one frame per 1000/maxFps ms and holds a later one for the rest of that
  // window. 60 merges bursts (a paste, answers landing together) and keeps a slow SSH link from
  // being flooded; keys rarely meet a held frame since the header's clock draws only when its
  // words change and nothing else drew for a second (useNowWhen). A frame is cheap with the dashboard's frame builder
  // (src/dashboard/terminal/ink-frame/), so a lower limit would only add waiting (docs/performance.md).
  maxFps: 60,
  // Ink 6.8 offers incrementalRendering, but with a trailing newline (any frame shorter than
  // the terminal) it moves the cursor up one line too few, so every update leaves the old
  // first line behind (reproduced in tmux). The full redraw is correct; keep it. It would not make
  // keys faster either: it writes fewer bytes once the frame is built, and the frame builder
  // already keeps the rows that did not change.
  incrementalRendering: false,
} as const;

/** Longest wait, on quitting, for the connections to the appliance to be ended (abandoned, not answered). */
const CLOSE_BOUND_MS = 500;

/** Waits for `work`, done or failed, or `ms` at most (the timer keeps no process alive). */
const withinMs = (work: Promise<unknown>, ms: number) =>
  Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);

/** runDashboard's exit code when the terminal went away (128 + SIGHUP) */
export const TERMINAL_HUNG_UP = 129;

const ENTER_ALT_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_ALT_SCREEN = '\x1b[?1049l';
// The terminal wraps a paste in ESC[200~ … ESC[201~, so KeyStdin can tell it from typed keys.
const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';
// Ink shows the cursor as it unmounts, but on the alternate screen: a terminal that keeps the
// cursor's visibility per screen (tmux) would give the shell back without one.
const SHOW_CURSOR = '\x1b[?25h';

/**
 * Runs the dashboard in this terminal until the user quits. The alternate screen keeps the
 * shell's scrollback intact; raw mode, cursor, screen and paste mode are restored on exit, on a
 * signal and after a crash, which ends with one short message instead of a stack trace.
 */
export async function runDashboard(
  deps: DashboardDeps,
  onFirstFrame?: () => void,
  screenReader = false,
): Promise<number> {
  const { stdout, stderr } = process;
  const tty = Boolean(stdout.isTTY);
  // A screen reader follows lines added to the normal screen (src/dashboard/terminal/screen-reader/), not frames.
  const enterModes = (screenReader ? '' : ENTER_ALT_SCREEN) + BRACKETED_PASTE_ON;
  const leaveModes = BRACKETED_PASTE_OFF + (screenReader ? '' : LEAVE_ALT_SCREEN) + SHOW_CURSOR;
  let restored = !tty;
  let terminalGone = false;
  const restoreTerminal = () => {
    if (restored || terminalGone) return;
    restored = true;
    stdout.write(leaveModes);
  };
  if (tty) stdout.write(enterModes);
  process.once('exit', restoreTerminal);

  const app = screenReader ? (
    <ScreenReaderApp deps={deps} say={(line) => stdout.write(`${line}\n`)} />
  ) : (
    <App deps={deps} />
  );
  const instance = render(app, {
    stdin: new KeyStdin(process.stdin) as unknown as NodeJS.ReadStream,
    exitOnCtrlC: true,
    patchConsole: !screenReader,
    ...FRAME_OPTIONS,
    // Ink's own mode would redraw the whole tree as text on every change: ours says what changed
    ...(screenReader ? { stdout: silentStdout(stdout), isScreenReaderEnabled: false } : {}),
  });
  // Ink draws the first frame within render()
  onFirstFrame?.();

  let crash: unknown = null;
  const fatal = (err: unknown) => {
    crash ??= err;
    instance.unmount(err instanceof Error ? err : new Error(String(err)));
  };
  const stop = () => instance.unmount();
  // A closed terminal (SSH dropped, terminal window closed) fails every write with EIO or EPIPE:
  // then nothing more is drawn or reported, but the shutdown still runs (the embedded demo
  // server removes its data directory). Left in place until exit, for the last writes.
  const onWriteError = (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EIO' && err.code !== 'EPIPE' && err.code !== 'ENXIO') return fatal(err);
    terminalGone = true;
    stop();
  };
  stdout.on('error', onWriteError);
  stderr.on('error', onWriteError);
  process.on('uncaughtException', fatal);
  process.on('unhandledRejection', fatal);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
  // Ctrl-C is a key while the terminal is raw; a SIGINT comes from kill, or from a terminal that
  // left raw mode: the same clean stop either way
  process.on('SIGINT', stop);
  try {
    await instance.waitUntilExit();
  } catch (err) {
    crash ??= err;
  } finally {
    process.off('uncaughtException', fatal);
    process.off('unhandledRejection', fatal);
    // The terminal is the user's again at once: nothing after this waits for the appliance.
    restoreTerminal();
    // The signals stay taken while the connections close: a hang-up signals more than once (the
    // terminal closing, then its session leader ending), and one with no handler of ours would
    // let Ink's signal-exit end the process before the embedded demo is stopped and removed.
    // The requests in flight are abandoned, not awaited (a slow appliance held a quit for up to
    // 30 s); ending the connections is local, and bounded all the same.
    await withinMs(deps.close(), CLOSE_BOUND_MS);
    process.off('SIGTERM', stop);
    process.off('SIGHUP', stop);
    process.off('SIGINT', stop);
  }
  if (terminalGone) return TERMINAL_HUNG_UP;
  if (crash) {
    const e = crash as Error;
    stderr.write(`appliance-admin stopped after an unexpected error: ${sanitize(e?.message ?? String(crash), 300)}\n`);
    if (process.env.APPLIANCE_ADMIN_DEBUG && e?.stack) stderr.write(`${e.stack}\n`);
    else stderr.write('(set APPLIANCE_ADMIN_DEBUG=1 for the stack trace)\n');
    return 1;
  }
  return 0;
}
