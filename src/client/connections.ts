import { Client } from './undici-client.js';
import { TransportError } from './errors.js';

/**
 * The client's connections to the appliance: ONE kept-alive connection for the calls, and a
 * short-lived one of its own for each download or stream, so that a long export never holds up the
 * dashboard's polling. abandon() ends them all at once.
 */
export class Connections {
  /** the kept-alive connection the calls share */
  readonly main: Client;
  readonly #origin: string;
  readonly #timeoutMs: number;
  readonly #ca: string | Buffer | undefined;
  /** the short-lived connections of downloads and streams now open: abandon() ends them too */
  readonly #shortLived = new Set<Client>();
  #abandoned = false;

  constructor(origin: string, timeoutMs: number, ca: string | Buffer | undefined) {
    this.#origin = origin;
    this.#timeoutMs = timeoutMs;
    this.#ca = ca;
    this.main = this.#newClient();
  }

  #newClient(): Client {
    return new Client(this.#origin, {
      // A GET goes out as soon as the answer before it has its headers, not a loop turn after its
      // body was read and handled: the start's two reads overlap (docs/performance.md).
      // undici never pipelines a change, nor anything behind one before its headers.
      pipelining: 2,
      keepAliveTimeout: 30_000,
      // Node's default, written here: without it undici loads node:http to read it (start time)
      maxHeaderSize: 16 * 1024,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      connect: { timeout: this.#timeoutMs, ...(this.#ca ? { ca: this.#ca } : {}) },
    });
  }

  /** A connection of its own for a download or a stream, ended by release() or abandon(). */
  openShortLived(): Client {
    if (this.#abandoned) throw new TransportError('aborted', 'the dashboard is quitting: nothing more is sent');
    const client = this.#newClient();
    this.#shortLived.add(client);
    return client;
  }

  async release(client: Client): Promise<void> {
    this.#shortLived.delete(client);
    await client.close().catch(() => undefined);
  }

  /** Ends the kept-alive connection once the requests in flight are answered. */
  async close(): Promise<void> {
    await this.main.close().catch(() => undefined);
  }

  /** Ends every connection now: the requests in flight fail at once, as cancelled, and nothing more is sent. */
  async abandon(): Promise<void> {
    this.#abandoned = true;
    const all = [this.main, ...this.#shortLived];
    this.#shortLived.clear();
    await Promise.all(all.map((c) => c.destroy().catch(() => undefined)));
  }
}
