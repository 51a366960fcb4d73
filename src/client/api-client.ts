import type { Dispatcher } from 'undici';
import { Client } from './undici-client.js';
import type { z } from 'zod';
import { API_PREFIX, ROUTE_META, type RouteMeta, type RouteName } from '../contract/route-meta.js';
import type { RouteResponse, routes } from '../contract/routes.js';
import { routeSchemas } from './route-schemas.js';
import { MAX_DEPTH, MAX_ITEMS, sanitize, sanitizeDeep, type Cuts } from '../text/sanitize.js';
import {
  ApiError,
  NOT_THIS_API,
  REDIRECTED,
  TransportError,
  toTransportError,
  type InvalidParam,
  type SchemaIssue,
} from './errors.js';
import { foreignAnswer, isPlainObject, readTolerantly } from './normalize.js';
import type { DownloadProgress, DownloadResult } from './download.js';
import { isInsecureHttp } from './transport-policy.js';

/** A fixed bearer token, or a function called before each request for a current one. */
export type TokenSource = string | (() => Promise<string>);

export interface ApiClientOptions {
  /** the appliance origin, with or without the /v1/admin suffix */
  url: string;
  /** a fixed bearer token, or a function called before each request for a current one (a stored sign-in renews itself) */
  token: TokenSource;
  /** PEM of a CA to trust in addition to the system store (an appliance's own CA) */
  ca?: string | Buffer;
  /** headers and body timeouts, each (the longest silence accepted) */
  timeoutMs?: number;
  /** the whole answer, headers and body, must arrive within this (default 3 x timeoutMs) */
  deadlineMs?: number;
  /** responses above this many bytes are aborted */
  maxBytes?: number;
}

export interface CallInput {
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  signal?: AbortSignal;
  /**
   * A stable name for a query whose URL moves (a rolling "last 24 hours" window): the ETag of the
   * last answer under this name is offered too, so an unchanged answer to the moved window comes
   * back 304 instead of being sent, read and drawn again. The server's ETag is its answer's hash,
   * so a 304 means the bytes are the same.
   */
  revalidateAs?: string;
  /** keep the answer as served (CallResult.served) on a route not marked `checked`: evidence written as it came */
  keepServed?: true;
}

export interface CallResult<T> {
  data: T;
  status: number;
  requestId: string | undefined;
  /** where the answer did not fit the contract; the data is still there */
  issues: SchemaIssue[];
  /** true when the server answered 304 and the cached value was returned */
  notModified: boolean;
  /** read while checks were deferred (ApiClient.deferChecks): as sent, not yet checked against the contract */
  unchecked?: true;
  /**
   * A route whose answer is checked for integrity (RouteMeta `checked`: the audit chain): the answer
   * as it came off the wire, parsed JSON neither mended nor sanitized. Only integrity checks read it;
   * nothing of it is shown (verify what was served, show what is safe).
   */
  served?: unknown;
}

/** A request as the action log sees it (src/dashboard/state/action-log.ts): never its headers or token. */
export interface Exchange {
  at: number;
  route: RouteName;
  method: string;
  /** the path and query as sent */
  path: string;
  /** the whole URL as sent */
  url: string;
  /** the appliance's URL as given (origin plus prefix), for an `appliance-admin --url` */
  appliance: string;
  /** the request's body as given, before JSON */
  body?: unknown;
  /** a file route: where it was written and its query */
  download?: { dest: string; query: Record<string, unknown> };
  status: number | null;
  requestId: string | undefined;
  error: string | null;
}

export type JsonRouteName = { [N in RouteName]: (typeof routes)[N]['response'] extends 'file' ? never : N }[RouteName];
export type FileRouteName = Exclude<RouteName, JsonRouteName>;
export type RouteData<N extends JsonRouteName> = RouteResponse<N>;

export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;
const ETAG_CACHE_MAX = 200;

/** Splits `--url` into the origin and any path prefix the appliance is mounted under. */
export function parseApplianceUrl(url: string): { origin: string; prefix: string; display: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`not a URL: ${sanitize(url, 200)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`the URL must be http or https, got ${u.protocol}`);
  if (u.username || u.password) throw new Error('put credentials in --token-file, not in the URL');
  const prefix = u.pathname.replace(/\/+$/, '').replace(new RegExp(`${API_PREFIX}$`), '');
  return { origin: u.origin, prefix, display: `${u.origin}${prefix}` };
}

/** Builds `/v1/admin/gateway/keys/key_1/revoke?x=y` from a route and its inputs. */
export function buildPath(
  def: RouteMeta,
  prefix: string,
  params: Record<string, string> = {},
  query: Record<string, unknown> = {},
): string {
  const path = def.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    const v = params[name];
    if (v === undefined || v === '') throw new Error(`route ${def.name} needs parameter ${name}`);
    return encodeURIComponent(v);
  });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue;
    qs.append(k, String(v));
  }
  const q = qs.toString();
  return `${prefix}${API_PREFIX}${path}${q ? `?${q}` : ''}`;
}

/**
 * The appliance API over ONE kept-alive connection: typed calls by contract route name, bearer
 * auth, ETag revalidation, timeouts, a response size cap, tolerant parsing, typed errors.
 */
export class ApiClient {
  readonly origin: string;
  readonly prefix: string;
  /** origin plus prefix, for the header */
  readonly displayUrl: string;
  /** plain http to a host other than loopback (only with --insecure-http): the header says so */
  readonly insecureHttp: boolean;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly #token: TokenSource;
  readonly #client: Client;
  readonly #maxBytes: number;
  readonly #ca: string | Buffer | undefined;
  readonly #etags = new Map<string, { etag: string; data: unknown; issues: SchemaIssue[]; served?: unknown }>();
  readonly #observers = new Set<(e: Exchange) => void>();
  /** the short-lived connections of downloads and streams now open: abandon() ends them too */
  readonly #shortLived = new Set<Client>();
  #abandoned = false;
  #checksDeferred = false;

  constructor(opts: ApiClientOptions) {
    const u = parseApplianceUrl(opts.url);
    this.origin = u.origin;
    this.prefix = u.prefix;
    this.displayUrl = u.display;
    this.insecureHttp = isInsecureHttp(u.origin);
    this.#token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.deadlineMs = opts.deadlineMs ?? 3 * this.timeoutMs;
    this.#maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.#ca = opts.ca;
    this.#client = this.#newClient();
  }

  #newClient(): Client {
    return new Client(this.origin, {
      // A GET goes out as soon as the answer before it has its headers, not a loop turn after its
      // body was read and handled: the start's two reads overlap (docs/performance.md).
      // undici never pipelines a change, nor anything behind one before its headers.
      pipelining: 2,
      keepAliveTimeout: 30_000,
      // Node's default, written here: without it undici loads node:http to read it (start time)
      maxHeaderSize: 16 * 1024,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
      connect: { timeout: this.timeoutMs, ...(this.#ca ? { ca: this.#ca } : {}) },
    });
  }

  /** A connection of its own for a download or a stream, ended by #release() or abandon(). */
  #openShortLived(): Client {
    if (this.#abandoned) throw new TransportError('aborted', 'the dashboard is quitting: nothing more is sent');
    const client = this.#newClient();
    this.#shortLived.add(client);
    return client;
  }

  async #release(client: Client): Promise<void> {
    this.#shortLived.delete(client);
    await client.close().catch(() => undefined);
  }

  /**
   * While deferred, a GET's answer that is a JSON object comes back sanitized and cut as every
   * answer is, but not checked against the contract nor mended to its shape, and marked
   * `unchecked`: the dashboard's first frame then builds no schema and loads no zod, 10-15 ms of
   * its start (docs/performance.md); the poll after that frame reads it again, checked. Such an
   * answer is not kept for ETag revalidation, so that next read is answered in full.
   */
  deferChecks(deferred: boolean): void {
    this.#checksDeferred = deferred;
  }

  /** Tells `fn` of each request once it is answered or failed (the action log); returns the unsubscribe. */
  observe(fn: (e: Exchange) => void): () => void {
    this.#observers.add(fn);
    return () => this.#observers.delete(fn);
  }

  /** The request and how it ended, to the observers: an ApiError has the status and request id too. */
  #tell(
    route: RouteName,
    input: Pick<CallInput, 'params' | 'query' | 'body'>,
    outcome: unknown,
    download?: Exchange['download'],
  ) {
    if (this.#observers.size === 0) return;
    let path: string;
    try {
      path = buildPath(ROUTE_META[route], this.prefix, input.params, input.query);
    } catch {
      return; // a route without its parameters was never sent
    }
    const answer = outcome as Partial<Pick<CallResult<unknown>, 'status' | 'requestId'>>;
    const e: Exchange = {
      at: Date.now(),
      route,
      method: ROUTE_META[route].method,
      path,
      url: `${this.origin}${path}`,
      appliance: this.displayUrl,
      ...(input.body === undefined ? {} : { body: input.body }),
      ...(download ? { download } : {}),
      status: typeof answer?.status === 'number' ? answer.status : null,
      requestId: typeof answer?.requestId === 'string' ? answer.requestId : undefined,
      error: outcome instanceof Error ? sanitize(outcome.message, 300) : null,
    };
    for (const fn of this.#observers) fn(e);
  }

  /** The token stays out of util.inspect, JSON and logs. */
  toJSON() {
    return { url: this.displayUrl };
  }

  /** A failure to get a token (the stored sign-in expired, …) is thrown as is: nothing was sent. */
  async #headers(extra: Record<string, string> = {}): Promise<Record<string, string>> {
    const token = typeof this.#token === 'string' ? this.#token : await this.#token();
    return { authorization: `Bearer ${token}`, accept: 'application/json, application/problem+json', ...extra };
  }

  /**
   * Calls a contract route by name and returns its tolerantly parsed, sanitized answer. The
   * idle timeouts alone would let a server trickling one byte a second hold a call for ever,
   * so the whole answer also has a deadline.
   */
  async call<N extends JsonRouteName>(name: N, input: CallInput = {}): Promise<CallResult<RouteData<N>>> {
    try {
      const res = await this.#callInTime(name, input);
      this.#tell(name, input, res);
      return res;
    } catch (err) {
      this.#tell(name, input, err);
      throw err;
    }
  }

  async #callInTime<N extends JsonRouteName>(name: N, input: CallInput): Promise<CallResult<RouteData<N>>> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.deadlineMs);
    timer.unref?.();
    const signal = input.signal ? AbortSignal.any([input.signal, deadline.signal]) : deadline.signal;
    try {
      return await this.#call(name, { ...input, signal });
    } catch (err) {
      if (deadline.signal.aborted && !input.signal?.aborted) {
        throw new TransportError(
          'timeout',
          `the appliance did not send its whole answer within ${this.deadlineMs / 1000} s`,
          'DEADLINE',
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async #call<N extends JsonRouteName>(name: N, input: CallInput): Promise<CallResult<RouteData<N>>> {
    const def: RouteMeta = ROUTE_META[name];
    const path = buildPath(def, this.prefix, input.params, input.query);
    // a moving query is remembered under its name only: one answer kept per window, not one per URL
    const cacheKey = input.revalidateAs === undefined ? path : `as:${input.revalidateAs}`;
    const wantsServed = def.checked === true || input.keepServed === true;
    const remembered = def.method === 'GET' ? this.#etags.get(cacheKey) : undefined;
    // an answer remembered without what was served cannot give it back on a 304
    const cached = remembered && (!wantsServed || remembered.served !== undefined) ? remembered : undefined;
    const headers = await this.#headers(cached ? { 'if-none-match': cached.etag } : {});
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#client.request({ path, method: def.method, headers, body, signal: input.signal });
    } catch (err) {
      throw toTransportError(err);
    }
    const requestId = requestIdOf(res.headers);
    if (res.statusCode === 304 && cached) {
      await res.body.dump();
      return {
        data: cached.data as RouteData<N>,
        status: 304,
        requestId,
        issues: cached.issues,
        notModified: true,
        ...(wantsServed ? { served: cached.served } : {}),
      };
    }
    const text = await this.#readCapped(res);
    if (isRedirect(res.statusCode))
      throw redirectError(`the answer to ${def.method} ${def.path}`, res, `${this.origin}${path}`);
    if (res.statusCode >= 400) throw problemFrom(res.statusCode, res.headers, text, requestId);
    let raw: unknown;
    try {
      raw = text === '' ? undefined : JSON.parse(text);
    } catch {
      const what = looksLikeHtml(res.headers, text)
        ? 'an HTML page, not JSON (a proxy or sign-in page in between?)'
        : 'not valid JSON';
      throw new TransportError('protocol', `the answer to ${def.method} ${def.path} is ${what}`);
    }
    const unchecked = this.#checksDeferred && def.method === 'GET' && isPlainObject(raw);
    const schema = unchecked ? null : ((await routeSchemas(name)).response as z.ZodType);
    // an answer without this API's envelope would otherwise be mended into an empty list
    const foreign = schema && foreignAnswer(schema, raw);
    if (foreign)
      throw new TransportError(
        'protocol',
        `the answer to ${def.method} ${def.path} is not from the appliance API: ${sanitize(foreign, 300)}`,
        NOT_THIS_API,
      );
    let value: unknown = raw;
    let issues: SchemaIssue[] = [];
    let data: RouteData<N>;
    try {
      if (schema) ({ value, issues } = readTolerantly(schema, raw));
      const cuts: Cuts = { depth: false, items: false };
      data = sanitizeDeep(value, undefined, 0, cuts) as RouteData<N>;
      if (cuts.items)
        issues = [...issues, { path: '(root)', message: `lists longer than ${MAX_ITEMS} items were cut` }];
      if (cuts.depth)
        issues = [...issues, { path: '(root)', message: `values nested deeper than ${MAX_DEPTH} levels were cut` }];
    } catch {
      // e.g. JSON nested deeper than any reader's stack: unreadable, not a crash
      throw new TransportError('protocol', `the answer to ${def.method} ${def.path} could not be read`);
    }
    const etag = headerOf(res.headers, 'etag');
    const served = wantsServed ? { served: raw } : {};
    if (unchecked) return { data, status: res.statusCode, requestId, issues, notModified: false, unchecked, ...served };
    if (def.method === 'GET' && etag) this.#remember(cacheKey, { etag, data, issues, ...served });
    return { data, status: res.statusCode, requestId, issues, notModified: false, ...served };
  }

  #remember(path: string, entry: { etag: string; data: unknown; issues: SchemaIssue[]; served?: unknown }) {
    this.#etags.delete(path);
    this.#etags.set(path, entry);
    if (this.#etags.size > ETAG_CACHE_MAX) this.#etags.delete(this.#etags.keys().next().value as string);
  }

  async #readCapped(res: Dispatcher.ResponseData): Promise<string> {
    const declared = Number(headerOf(res.headers, 'content-length') ?? NaN);
    const tooLarge = () =>
      new TransportError('too-large', `the answer is larger than ${this.#maxBytes} bytes; refused`);
    if (declared > this.#maxBytes) {
      discard(res);
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let n = 0;
    try {
      for await (const chunk of res.body) {
        n += (chunk as Buffer).length;
        if (n > this.#maxBytes) {
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

  /**
   * Streams a file route (an export) to `dest` with progress and a sha256. It uses its own
   * short-lived connection so a long download never holds up the dashboard's polling.
   */
  async download(
    name: FileRouteName,
    query: Record<string, unknown>,
    dest: string,
    onProgress?: (p: DownloadProgress) => void,
    signal?: AbortSignal,
  ): Promise<DownloadResult> {
    try {
      const result = await this.#download(name, query, dest, onProgress, signal);
      this.#tell(name, { query }, { status: 200, requestId: result.requestId }, { dest, query });
      return result;
    } catch (err) {
      this.#tell(name, { query }, err, { dest, query });
      throw err;
    }
  }

  async #download(
    name: FileRouteName,
    query: Record<string, unknown>,
    dest: string,
    onProgress?: (p: DownloadProgress) => void,
    signal?: AbortSignal,
  ): Promise<DownloadResult> {
    const path = buildPath(ROUTE_META[name], this.prefix, {}, query);
    const client = this.#openShortLived();
    try {
      const headers = await this.#headers({ accept: '*/*' });
      let res: Dispatcher.ResponseData;
      try {
        res = await client.request({ path, method: 'GET', headers, signal, bodyTimeout: this.timeoutMs * 3 });
      } catch (err) {
        throw toTransportError(err);
      }
      const requestId = requestIdOf(res.headers);
      if (isRedirect(res.statusCode)) {
        discard(res);
        throw redirectError(`the answer to GET ${ROUTE_META[name].path}`, res, `${this.origin}${path}`);
      }
      if (res.statusCode >= 400) throw problemFrom(res.statusCode, res.headers, await this.#readCapped(res), requestId);
      // loaded on the first download: its node:crypto and node:fs/promises are not needed to start
      const { streamToFile, exportTypeProblem } = await import('./download.js');
      const format = String(query.format ?? 'csv');
      const contentType = headerOf(res.headers, 'content-type');
      const wrongType = exportTypeProblem(format, contentType);
      if (wrongType) {
        // checked before anything is written: no file, not even a partial one, holds a stranger's page
        let page = '';
        if (looksLikeHtml(res.headers, '')) page = ` (an HTML page: ${htmlSummary(await readPrefix(res, 16 * 1024))})`;
        else discard(res);
        throw new TransportError(
          'protocol',
          `the answer is not an export from an appliance: ${wrongType}${page}`,
          NOT_THIS_API,
        );
      }
      return await streamToFile(res, dest, onProgress, requestId);
    } finally {
      await this.#release(client);
    }
  }

  /**
   * A file route's answer as it streams (the dashboard's V verifies an export as it arrives, with
   * nothing written to disk): its headers and its body's bytes, on a short-lived connection of its
   * own. The caller bounds it (bytes, time) and aborts with `signal`; the connection closes when the
   * body ends or fails.
   */
  async stream(
    name: FileRouteName,
    query: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ header(name: string): string | undefined; body: AsyncIterable<Buffer> }> {
    const path = buildPath(ROUTE_META[name], this.prefix, {}, query);
    const client = this.#openShortLived();
    let res: Dispatcher.ResponseData;
    try {
      res = await client.request({
        path,
        method: 'GET',
        headers: await this.#headers({ accept: '*/*' }),
        signal,
        bodyTimeout: this.timeoutMs * 3,
      });
    } catch (err) {
      await this.#release(client);
      throw toTransportError(err);
    }
    const requestId = requestIdOf(res.headers);
    if (isRedirect(res.statusCode) || res.statusCode >= 400) {
      const err = isRedirect(res.statusCode)
        ? redirectError(`the answer to GET ${ROUTE_META[name].path}`, res, `${this.origin}${path}`)
        : problemFrom(res.statusCode, res.headers, await this.#readCapped(res), requestId);
      discard(res);
      await this.#release(client);
      throw err;
    }
    const headers = res.headers;
    const release = () => this.#release(client);
    async function* body() {
      try {
        for await (const chunk of res.body) yield chunk as Buffer;
      } catch (err) {
        throw toTransportError(err);
      } finally {
        discard(res);
        await release();
      }
    }
    return { header: (n) => headerOf(headers, n), body: body() };
  }

  /**
   * Whether a text holds the bearer token in use: a closure over it, for a scan that must not find it
   * in what it writes (an evidence pack), so that the token itself never leaves the client.
   */
  async tokenMatcher(): Promise<(text: string) => boolean> {
    const token = typeof this.#token === 'string' ? this.#token : await this.#token();
    return (text) => token !== '' && text.includes(token);
  }

  /** Forgets cached ETags (e.g. after a mutation, so the next poll reads fresh data). */
  forgetCache() {
    this.#etags.clear();
  }

  /** Ends the connection once the requests in flight are answered (a command that is done with it). */
  async close(): Promise<void> {
    await this.#client.close().catch(() => undefined);
  }

  /**
   * Ends every connection now, the kept-alive one and those of downloads and streams: the requests
   * in flight fail at once, as cancelled, and nothing more is sent. For quitting the dashboard,
   * which never waits for an appliance: close() would wait for each answer, and a slow appliance
   * (one trickling its answers) would hold the quit up to the 30 s deadline of a call.
   */
  async abandon(): Promise<void> {
    this.#abandoned = true;
    const all = [this.#client, ...this.#shortLived];
    this.#shortLived.clear();
    await Promise.all(all.map((c) => c.destroy().catch(() => undefined)));
  }
}

/** Drops a response body we will not read (its abort error is expected, not unhandled). */
function discard(res: Dispatcher.ResponseData) {
  res.body.on('error', () => undefined);
  res.body.destroy();
}

/** Any 3xx: a 304 revalidating a cached answer is handled before, so a 304 here revalidated nothing. */
const isRedirect = (status: number) => status >= 300 && status < 400;

/**
 * A redirect is not followed (undici does not, and must not: the bearer token would go to the
 * redirect's target), so it is a failure naming where it points: a sign-in proxy in front of the
 * appliance, or a --url that is not the appliance. The query is left out (sign-in state).
 */
function redirectError(what: string, res: Dispatcher.ResponseData, requestUrl: string): TransportError {
  if (res.statusCode === 304)
    return new TransportError(
      'protocol',
      `${what} is 304 Not Modified, though nothing was offered to revalidate`,
      REDIRECTED,
    );
  const location = headerOf(res.headers, 'location');
  let where = 'without a Location';
  if (location) {
    let target = location;
    try {
      const u = new URL(location, requestUrl);
      if (u.protocol === 'http:' || u.protocol === 'https:') target = `${u.origin}${u.pathname}${u.search ? '?…' : ''}`;
    } catch {
      /* not a URL: named as sent */
    }
    where = `to ${sanitize(target, 200)}`;
  }
  return new TransportError(
    'protocol',
    `${what} is a redirect (${res.statusCode}) ${where}; not followed, the token goes only to the appliance's URL (a sign-in proxy in front of it, or not the appliance's URL?)`,
    REDIRECTED,
  );
}

/** Up to `max` bytes of a body we will not keep (to name an HTML page), the rest dropped. */
async function readPrefix(res: Dispatcher.ResponseData, max: number): Promise<string> {
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

export function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

const requestIdOf = (headers: Record<string, string | string[] | undefined>) => {
  const v = headerOf(headers, 'x-request-id');
  return v ? sanitize(v, 100) : undefined;
};

function looksLikeHtml(headers: Record<string, string | string[] | undefined>, text: string): boolean {
  return /html/i.test(headerOf(headers, 'content-type') ?? '') || /^\s*</.test(text);
}

/** "502 Bad Gateway" out of a proxy's error page: its title, else its first words. */
function htmlSummary(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  const text = (title ?? html.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/&[a-z#0-9]+;/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return sanitize(text || 'an empty page', 120);
}

/** Decodes a problem+json (tolerantly) or any other error body into an ApiError. */
export function problemFrom(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
  requestId?: string,
): ApiError {
  let p: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) p = parsed as Record<string, unknown>;
  } catch {
    /* not JSON: fall through to the status words */
  }
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? sanitize(v, 500) : undefined);
  const nestedError = p.error && typeof p.error === 'object' ? (p.error as Record<string, unknown>) : {};
  const code = str(p.code) ?? str(nestedError.code) ?? `HTTP-${status}`;
  const title = str(p.title) ?? `HTTP ${status}`;
  const html = Object.keys(p).length === 0 && looksLikeHtml(headers, text);
  const fromText = html
    ? `${htmlSummary(text)} (an HTML page from a proxy, not the appliance's answer)`
    : text && !text.trimStart().startsWith('{')
      ? sanitize(text, 200)
      : undefined;
  const detail = str(p.detail) ?? str(p.message) ?? str(p.error) ?? str(nestedError.message) ?? fromText;
  const rawParams = p.invalid_params ?? p.invalidParams;
  const invalid: InvalidParam[] = Array.isArray(rawParams)
    ? rawParams.slice(0, 20).map((x) => ({
        name: sanitize((x as InvalidParam)?.name, 100),
        reason: sanitize((x as InvalidParam)?.reason, 200),
      }))
    : [];
  const retry = Number(headerOf(headers, 'retry-after'));
  return new ApiError(
    status,
    code,
    title,
    detail,
    str(p.request_id) ?? str(p.requestId) ?? requestId,
    invalid,
    Number.isFinite(retry) ? retry : undefined,
  );
}
