import type { Client as UndiciClient } from 'undici';
import ClientClass from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import request from 'undici/lib/api/api-request.js';

/**
 * undici's Client, imported from its own module instead of undici's index: the index also loads
 * fetch, WebSocket, cookies, caches and mocks (and through them Node's internal copy of undici),
 * about 14 ms of every dashboard start in a profile (docs/performance.md). The index adds request() to
 * every dispatcher the same way; the client tests (test/client) call it, so a change inside
 * undici that breaks this shows there.
 */
if (typeof (Dispatcher.prototype as { request?: unknown }).request !== 'function') {
  Object.assign(Dispatcher.prototype, { request });
}

export const Client = ClientClass;
export type Client = UndiciClient;
