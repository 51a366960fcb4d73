import { Writable } from 'node:stream';

/** The shell's smallest layout: below it, it would take no keys but q (src/dashboard/shell/Shell.tsx). */
const MIN_COLUMNS = 80;
const MIN_ROWS = 24;

/**
 * Where Ink draws its frames in screen-reader mode: nowhere. It reports the terminal's size (at
 * least the shell's smallest, since the lines said do not depend on it) and passes its resizes
 * on, so the shell lays out and handles keys as it would on screen.
 */
export function silentStdout(terminal: NodeJS.WriteStream): NodeJS.WriteStream {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const onResize = () => sink.emit('resize');
  terminal.on('resize', onResize);
  sink.once('close', () => terminal.off('resize', onResize));
  return Object.defineProperties(sink, {
    columns: { get: () => Math.max(terminal.columns || 0, MIN_COLUMNS) },
    rows: { get: () => Math.max(terminal.rows || 0, MIN_ROWS) },
    isTTY: { value: true },
  }) as unknown as NodeJS.WriteStream;
}
