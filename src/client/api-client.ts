import type { Dispatcher } from 'undici';
import { ROUTE_META, type RouteMeta, type RouteName } from '../contract/route-meta.js';
import type { RouteResponse, routes } from '../contract/routes.js';
import { toTransportError, type SchemaIssue } from './errors.js';
import type { DownloadProgress, DownloadResult } from './download.js';
import { isInsecureHttp } from './transport-policy.js';
import { parseApplianceUrl } from './appliance-url.js';
import { buildPath } from './route-path.js';
import { requestHeaders, tokenMatcher, type TokenSource } from './bearer-token.js';
import { Connections } from './connections.js';
import { withinDeadline } from './deadline.js';
import { EtagCache } from './etag-cache.js';
import { ExchangeLog, type Exchange } from './exchange-log.js';
import { downloadFile, streamFile, type FileRequest, type FileStream } from './file-routes.js';
import { readJsonAnswer } from './json-answer.js';
import { problemFrom } from './problem.js';
import { isRedirect, redirectError } from './redirect.js';
import { headerOf, readCapped, requestIdOf } from './response-body.js';

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

export type JsonRouteName = { [N in RouteName]: (typeof routes)[N]['response'] extends 'file' ? never : N }[RouteName];
export type FileRouteName = Exclude<RouteName, JsonRouteName>;
export type RouteData<N extends JsonRouteName> = RouteResponse<N>;

export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The appliance API by contract route name: typed calls, typed errors. It puts together the jobs
 * of the modules beside it: the appliance's URL and its transport policy, the bearer token, the
 * connections, the deadline, ETag revalidation, reading and checking answers, the exchange log
 * and file routes.
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
  readonly #connections: Connections;
  readonly #maxBytes: number;
  readonly #etags = new EtagCache();
  readonly #log: ExchangeLog;
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
    this.#connections = new Connections(this.origin, this.timeoutMs, opts.ca);
    this.#log = new ExchangeLog(u);
  }

  /**
   * While deferred, a GET's answer that is a JSON object comes back sanitized and cut as every
   * answer is, but not checked against the contract nor mended to its shape, and marked
   * `unchecked`: the dashboard's first frame then builds no schema and loads no zod, a measurable
   * part of its start (docs/performance.md); the poll after that frame reads it again, checked.
   * Such an answer is not kept for ETag revalidation, so that next read is answered in full.
   */
  deferChecks(deferred: boolean): void {
    this.#checksDeferred = deferred;
  }

  /** Tells `fn` of each request once it is answered or failed (the action log); returns the unsubscribe. */
  observe(fn: (e: Exchange) => void): () => void {
    return this.#log.observe(fn);
  }

  /** The token stays out of util.inspect, JSON and logs. */
  toJSON() {
    return { url: this.displayUrl };
  }

  /**
   * Calls a contract route by name and returns its tolerantly parsed, sanitized answer, within
   * the client's deadline for the whole answer (withinDeadline).
   */
  async call<N extends JsonRouteName>(name: N, input: CallInput = {}): Promise<CallResult<RouteData<N>>> {
    try {
      const res = await withinDeadline(this.deadlineMs, input.signal, (signal) =>
        this.#call(name, { ...input, signal }),
      );
      this.#log.tell(name, input, res);
      return res;
    } catch (err) {
      this.#log.tell(name, input, err);
      throw err;
    }
  }

  async #call<N extends JsonRouteName>(name: N, input: CallInput): Promise<CallResult<RouteData<N>>> {
    const def: RouteMeta = ROUTE_META[name];
    const path = buildPath(def, this.prefix, input.params, input.query);
    const cacheKey = EtagCache.keyOf(path, input.revalidateAs);
    const wantsServed = def.checked === true || input.keepServed === true;
    const cached = def.method === 'GET' ? this.#etags.offer(cacheKey, wantsServed) : undefined;
    const headers = await requestHeaders(this.#token, cached ? { 'if-none-match': cached.etag } : {});
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#connections.main.request({ path, method: def.method, headers, body, signal: input.signal });
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
    const text = await readCapped(res, this.#maxBytes);
    if (isRedirect(res.statusCode))
      throw redirectError(`the answer to ${def.method} ${def.path}`, res, `${this.origin}${path}`);
    if (res.statusCode >= 400) throw problemFrom(res.statusCode, res.headers, text, requestId);
    const answer = await readJsonAnswer(name, def, res.headers, text, this.#checksDeferred);
    const data = answer.data as RouteData<N>;
    const { issues } = answer;
    const etag = headerOf(res.headers, 'etag');
    const served = wantsServed ? { served: answer.raw } : {};
    if (answer.unchecked)
      return { data, status: res.statusCode, requestId, issues, notModified: false, unchecked: true, ...served };
    if (def.method === 'GET' && etag) this.#etags.remember(cacheKey, { etag, data, issues, ...served });
    return { data, status: res.statusCode, requestId, issues, notModified: false, ...served };
  }

  /** One file route's request: its own connection, the token, the bounds (file-routes.ts). */
  #fileRequest(name: FileRouteName, query: Record<string, unknown>): FileRequest {
    const path = buildPath(ROUTE_META[name], this.prefix, {}, query);
    return {
      connections: this.#connections,
      def: ROUTE_META[name],
      path,
      url: `${this.origin}${path}`,
      token: this.#token,
      timeoutMs: this.timeoutMs,
      maxBytes: this.#maxBytes,
    };
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
      const req = this.#fileRequest(name, query);
      const result = await downloadFile(req, String(query.format ?? 'csv'), dest, onProgress, signal);
      this.#log.tell(name, { query }, { status: 200, requestId: result.requestId }, { dest, query });
      return result;
    } catch (err) {
      this.#log.tell(name, { query }, err, { dest, query });
      throw err;
    }
  }

  /**
   * A file route's answer as it streams (the dashboard's V verifies an export as it arrives, with
   * nothing written to disk): its headers and its body's bytes, on a short-lived connection of its
   * own. The caller bounds it (bytes, time) and aborts with `signal`; the connection closes when the
   * body ends or fails.
   */
  async stream(name: FileRouteName, query: Record<string, unknown>, signal: AbortSignal): Promise<FileStream> {
    // in the action log as an export is: the appliance audits it as one (an auditor's V is audit.export)
    try {
      const res = await streamFile(this.#fileRequest(name, query), signal);
      this.#log.tell(name, { query }, res, { query });
      return res;
    } catch (err) {
      this.#log.tell(name, { query }, err, { query });
      throw err;
    }
  }

  /**
   * Whether a text holds the bearer token in use: a closure over it, for a scan that must not find it
   * in what it writes (an evidence pack), so that the token itself never leaves the client.
   */
  async tokenMatcher(): Promise<(text: string) => boolean> {
    return tokenMatcher(this.#token);
  }

  /** Forgets cached ETags (e.g. after a mutation, so the next poll reads fresh data). */
  forgetCache() {
    this.#etags.clear();
  }

  /** Ends the connection once the requests in flight are answered (a command that is done with it). */
  async close(): Promise<void> {
    await this.#connections.close();
  }

  /**
   * Ends every connection now, the kept-alive one and those of downloads and streams: the requests
   * in flight fail at once, as cancelled, and nothing more is sent. For quitting the dashboard,
   * which never waits for an appliance: close() would wait for each answer, and a slow appliance
   * (one trickling its answers) would hold the quit up to a call's whole deadline.
   */
  async abandon(): Promise<void> {
    await this.#connections.abandon();
  }
}
