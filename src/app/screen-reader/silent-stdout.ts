import { Writable } from 'node:stream';

/**
 * Where Ink draws its frames in screen-reader mode: nowhere. It reports the terminal's size and
 * passes its resizes on, so the shell lays out (and handles keys) as it would on screen.
 */
export function silentStdout(terminal: NodeJS.WriteStream): NodeJS.WriteStream {
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const onResize = () => sink.emit('resize');
  terminal.on('resize', onResize);
  sink.once('close', () => terminal.off('resize', onResize));
  return Object.defineProperties(sink, {
    columns: { get: () => terminal.columns },
    rows: { get: () => terminal.rows },
    isTTY: { value: true },
  }) as unknown as NodeJS.WriteStream;
}
