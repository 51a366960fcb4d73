import type { Dispatcher } from 'undici';
import type { RouteMeta } from '../contract/route-meta.js';
import { requestHeaders, type TokenSource } from './bearer-token.js';
import type { Connections } from './connections.js';
import type { DownloadProgress, DownloadResult } from './download.js';
import { NOT_THIS_API, TransportError, toTransportError } from './errors.js';
import { htmlSummary, looksLikeHtml, problemFrom } from './problem.js';
import { isRedirect, redirectError } from './redirect.js';
import { discard, headerOf, readCapped, readPrefix, requestIdOf } from './response-body.js';

/**
 * A file route's answer (an export), written to a file or read as it streams, each on a short-lived
 * connection of its own so that a long download never holds up the dashboard's polling.
 */

/** One file route's request, built by ApiClient. */
export interface FileRequest {
  connections: Connections;
  def: RouteMeta;
  /** the path and query to ask for */
  path: string;
  /** the whole URL, which a redirect's Location is read against */
  url: string;
  token: TokenSource;
  /** the body may be silent three times this long: an export's rows can be slow to come */
  timeoutMs: number;
  /** an error answer's body is read up to this */
  maxBytes: number;
}

/** A file route's answer as it streams: its headers and its body's bytes. */
export interface FileStream {
  status: number;
  requestId: string | undefined;
  header(name: string): string | undefined;
  body: AsyncIterable<Buffer>;
}

/** Streams a file route's answer to `dest` with progress and a sha256. */
export async function downloadFile(
  req: FileRequest,
  format: string,
  dest: string,
  onProgress?: (p: DownloadProgress) => void,
  signal?: AbortSignal,
): Promise<DownloadResult> {
  const client = req.connections.openShortLived();
  try {
    const headers = await requestHeaders(req.token, { accept: '*/*' });
    let res: Dispatcher.ResponseData;
    try {
      res = await client.request({ path: req.path, method: 'GET', headers, signal, bodyTimeout: req.timeoutMs * 3 });
    } catch (err) {
      throw toTransportError(err);
    }
    const requestId = requestIdOf(res.headers);
    if (isRedirect(res.statusCode)) {
      discard(res);
      throw redirectError(`the answer to GET ${req.def.path}`, res, req.url);
    }
    if (res.statusCode >= 400)
      throw problemFrom(res.statusCode, res.headers, await readCapped(res, req.maxBytes), requestId);
    // loaded on the first download: its node:crypto and node:fs/promises are not needed to start
    const { streamToFile, exportTypeProblem } = await import('./download.js');
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
    await req.connections.release(client);
  }
}

/**
 * A file route's answer as it streams (the dashboard's V verifies an export as it arrives, with
 * nothing written to disk). The caller bounds it (bytes, time) and aborts with `signal`; the
 * connection closes when the body ends or fails.
 */
export async function streamFile(req: FileRequest, signal: AbortSignal): Promise<FileStream> {
  const { connections } = req;
  const client = connections.openShortLived();
  let res: Dispatcher.ResponseData;
  try {
    res = await client.request({
      path: req.path,
      method: 'GET',
      headers: await requestHeaders(req.token, { accept: '*/*' }),
      signal,
      bodyTimeout: req.timeoutMs * 3,
    });
  } catch (err) {
    await connections.release(client);
    throw toTransportError(err);
  }
  const requestId = requestIdOf(res.headers);
  if (isRedirect(res.statusCode) || res.statusCode >= 400) {
    const err = isRedirect(res.statusCode)
      ? redirectError(`the answer to GET ${req.def.path}`, res, req.url)
      : problemFrom(res.statusCode, res.headers, await readCapped(res, req.maxBytes), requestId);
    discard(res);
    await connections.release(client);
    throw err;
  }
  const headers = res.headers;
  const release = () => connections.release(client);
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
  return { status: res.statusCode, requestId, header: (n) => headerOf(headers, n), body: body() };
}
