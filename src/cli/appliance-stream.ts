import type { Dispatcher } from 'undici';
import { buildPath } from '../client/route-path.js';
import { headerOf } from '../client/response-body.js';
import { parseApplianceUrl } from '../client/appliance-url.js';
import { problemFrom } from '../client/problem.js';
import { TransportError, toTransportError } from '../client/errors.js';
import { Client } from '../client/undici-client.js';
import { ROUTE_META } from '../contract/route-meta.js';
import type { Connection } from './connection.js';
import { UsageError } from '../config/usage-error.js';

/** How long the appliance may stay silent while it streams (an export of a million entries). */
const TIMEOUT_MS = 30_000;
/** A JSON answer larger than this (a checkpoint page) is refused. */
const MAX_JSON_BYTES = 8 * 1024 * 1024;

/**
 * Raw requests of the appliance for the verifier and the evidence pack, which need what the typed
 * client does not give: an export's body as it arrives and its response headers (the signed
 * checkpoint), answers as sent (the pack's seal), and a route the client may not know. Same URL,
 * token, CA and refusals (a redirect is never followed: the token goes only to the appliance).
 */
export class ApplianceStream {
  readonly #prefix: string;
  readonly #client: Client;
  readonly #token: Connection['token'];

  constructor(c: Connection) {
    let u;
    try {
      u = parseApplianceUrl(c.url);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    this.#prefix = u.prefix;
    this.#token = c.token;
    this.#client = new Client(u.origin, {
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      connect: { timeout: TIMEOUT_MS, ...(c.ca ? { ca: c.ca } : {}) },
    });
  }

  /** GET a route by name (a path for one the contract does not list); the answer when it is a 2xx. */
  async get(
    route: string,
    query: Record<string, unknown> = {},
    signal?: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const def = (ROUTE_META as Record<string, { path: string; name: string }>)[route];
    const path = def
      ? buildPath(def as never, this.#prefix, {}, query)
      : buildPath({ path: route, name: route } as never, this.#prefix, {}, query);
    const token = typeof this.#token === 'string' ? this.#token : await this.#token();
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#client.request({
        path,
        method: 'GET',
        headers: { authorization: `Bearer ${token}`, accept: '*/*' },
        signal,
      });
    } catch (err) {
      throw toTransportError(err);
    }
    if (res.statusCode >= 300) {
      const text = await readText(res, 64 * 1024).catch(() => '');
      if (res.statusCode < 400)
        throw new TransportError(
          'protocol',
          `GET ${def?.path ?? route} answered a redirect (${res.statusCode}); not followed`,
        );
      throw problemFrom(res.statusCode, res.headers, text, headerOf(res.headers, 'x-request-id'));
    }
    return res;
  }

  /** GET a JSON route; its parsed answer. */
  async json(route: string, query: Record<string, unknown> = {}, signal?: AbortSignal): Promise<unknown> {
    return parsed(await readText(await this.get(route, query, signal), MAX_JSON_BYTES), `GET ${route}`);
  }

  /** POST a JSON body to a contract route without parameters (the seal, a witness's cosignature); its parsed answer. */
  async post(route: 'sealAudit' | 'cosignAuditCheckpoint', body: unknown, signal?: AbortSignal): Promise<unknown> {
    const def = ROUTE_META[route];
    const token = typeof this.#token === 'string' ? this.#token : await this.#token();
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#client.request({
        path: buildPath(def, this.#prefix, {}, {}),
        method: def.method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      });
    } catch (err) {
      throw toTransportError(err);
    }
    const text = await readText(res, MAX_JSON_BYTES);
    if (res.statusCode >= 300) {
      if (res.statusCode < 400)
        throw new TransportError(
          'protocol',
          `${def.method} ${def.path} answered a redirect (${res.statusCode}); not followed`,
        );
      throw problemFrom(res.statusCode, res.headers, text, headerOf(res.headers, 'x-request-id'));
    }
    return parsed(text, `${def.method} ${def.path}`);
  }

  close = () => this.#client.close().catch(() => undefined);
}

function parsed(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TransportError('protocol', `the answer to ${what} is not JSON`);
  }
}

async function readText(res: Dispatcher.ResponseData, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of res.body) {
    n += (chunk as Buffer).length;
    if (n > max) {
      res.body.destroy();
      throw new TransportError('too-large', `the answer is larger than ${max} bytes; refused`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
