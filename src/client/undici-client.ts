import type { Client as UndiciClient } from 'undici';
import ClientClass from 'undici/lib/dispatcher/client.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import request from 'undici/lib/api/api-request.js';

/**
 * undici's Client, imported from its own module instead of undici's index: the index also loads
 * fetch, WebSocket, cookies, caches and mocks (and through them Node's internal copy of undici) at
 * every dashboard start. The index adds request() to every dispatcher the same way. These are
 * undici's private paths: docs/dependency-edits.md (undici-deep-import) lists this with what it
 * buys, and test/build/undici-deep-import.test.ts fails when an undici upgrade moves them.
 */
if (typeof (Dispatcher.prototype as { request?: unknown }).request !== 'function') {
  Object.assign(Dispatcher.prototype, { request });
}

export const Client = ClientClass;
export type Client = UndiciClient;
