import { connect } from 'node:net';
import { nowMs } from './stats.js';

/** What went wrong beside a benchmark's main measurement: counted, the first few kept. */
export class Mishaps {
  count = 0;
  readonly first: string[] = [];
  note(what: string): void {
    this.count++;
    if (this.first.length < 20) this.first.push(what);
  }
}

/**
 * `n` slow clients on 127.0.0.1:port until `until` (a nowMs() time): each sends a request's
 * headers a byte every trickleMs, never finishing them, and connects again when the server cuts it
 * off. A close without a 408 answer before `until` is a mishap. Resolves with the ms from
 * connecting to each cut-off.
 */
export async function slowClients(
  port: number,
  n: number,
  trickleMs: number,
  until: number,
  mishaps: Mishaps,
): Promise<number[]> {
  const cutOffMs: number[] = [];
  const one = () =>
    new Promise<void>((resolve) => {
      const t0 = nowMs();
      let text = '';
      const socket = connect(port, '127.0.0.1');
      const trickle = setInterval(() => {
        if (socket.writable) socket.write('a');
      }, trickleMs);
      const stop = setTimeout(() => socket.destroy(), Math.max(0, until - nowMs()));
      socket.setEncoding('latin1').on('data', (d: string) => {
        text += d;
      });
      socket.on('error', () => {}); // a reset is a close here
      socket.once('connect', () => socket.write('GET /v1/admin/connectors HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '));
      socket.once('close', () => {
        clearInterval(trickle);
        clearTimeout(stop);
        if (/^HTTP\/1\.1 408 /.test(text)) cutOffMs.push(nowMs() - t0);
        else if (nowMs() < until)
          mishaps.note(`slow client closed without a 408: ${JSON.stringify(text.slice(0, 40))}`);
        resolve();
      });
    });
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      await new Promise((r) => setTimeout(r, (trickleMs * i) / n));
      while (nowMs() < until) await one();
    }),
  );
  return cutOffMs;
}
