import type { Dispatcher } from 'undici';
import { sanitize } from '../text/sanitize.js';
import { TransportError, toTransportError } from './errors.js';

/** Reading an answer's headers and body within bounds: a body is never read past what is kept. */

type Headers = Record<string, string | string[] | undefined>;

export function headerOf(headers: Headers, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The appliance's request id, as the operator is shown it. */
export const requestIdOf = (headers: Headers) => {
  const v = headerOf(headers, 'x-request-id');
  return v ? sanitize(v, 100) : undefined;
};

/** Drops a response body we will not read (its abort error is expected, not unhandled). */
export function discard(res: Dispatcher.ResponseData) {
  res.body.on('error', () => undefined);
  res.body.destroy();
}

/** The whole body as text, refused (and dropped) once it is larger than `maxBytes`, declared or sent. */
export async function readCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<string> {
  const declared = Number(headerOf(res.headers, 'content-length') ?? NaN);
  const tooLarge = () => new TransportError('too-large', `the answer is larger than ${maxBytes} bytes; refused`);
  if (declared > maxBytes) {
    discard(res);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for await (const chunk of res.body) {
      n += (chunk as Buffer).length;
      if (n > maxBytes) {
        discard(res);
        throw tooLarge();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    throw toTransportError(err);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Up to `max` bytes of a body we will not keep (to name an HTML page), the rest dropped. */
export async function readPrefix(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      n += (chunk as Buffer).length;
      if (n >= max) break;
    }
  } catch {
    /* what arrived is enough to name it */
  }
  discard(res);
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
