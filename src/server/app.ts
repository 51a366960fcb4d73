import Fastify, { type FastifyInstance, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import pino, { type Logger } from 'pino';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { API_PREFIX, buildOpenApi } from '../contract/index.js';
import { VERSION } from '../contract/version.js';
import { ensureDataDir, openDatabase, type Db } from './db/open.js';
import { lockDataDir } from './db/lock.js';
import { createAuthenticator, Unauthorized } from './auth.js';
import { ApiError } from './errors.js';
import { auditFailure, unroutedMutation } from './http/attempt-audit.js';
import { auditedRoutes } from './http/audited-routes.js';
import { RefusalLog } from './http/refusals.js';
import { WriteLimiter } from './http/rate-limit.js';
import { registerAreas } from './http/areas.js';
import { etagOf, sendProblem } from './http/reply.js';
import { routeGroups } from './routes/index.js';
import { demoGroup } from './demo/index.js';
import { newId } from './ids.js';
import { attachBackgroundTasks } from './background.js';
import type { ServerOptions } from './options.js';
import type { ServerConfig } from './config.js';

export interface AdminServer {
  app: FastifyInstance;
  db: Db;
  /** stops background work, finishes in-flight requests, closes the database */
  close(): Promise<void>;
}

const BODY_LIMIT = 64 * 1024;

/** Strict: invalid UTF-8 is refused rather than stored as U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * JSON.parse reviver refusing what fastify's own parser refuses (`__proto__`, `constructor.prototype`)
 * and lone surrogates (`"\ud800"`), which SQLite would store mangled.
 */
function refuseUnsafeMembers(key: string, value: unknown): unknown {
  if (
    key === '__proto__' ||
    (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype'))
  ) {
    throw new ApiError(400, `member name "${key}" is not allowed`);
  }
  if (LONE_SURROGATE.test(key) || (typeof value === 'string' && LONE_SURROGATE.test(value))) {
    throw new ApiError(400, 'a string holds a lone UTF-16 surrogate, which is not Unicode text');
  }
  return value;
}

/**
 * JSON.parse's message quotes up to ten characters of the body, which may be part of a key secret
 * or a token, and a failed mutation's detail goes into the audit trail: only the position is kept.
 */
function malformedJson(err: unknown): string {
  if (err instanceof RangeError) return 'malformed JSON: nested too deeply';
  const at = /at position (\d+)/.exec((err as Error).message)?.[1];
  return at ? `malformed JSON at position ${at}` : 'malformed JSON';
}

/** Errors answered by Node or fastify before any route runs, as problem+json like every other error. */
function clientErrorProblem(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431 ? 'request headers are too large' : status === 408 ? 'request timed out' : 'malformed HTTP request';
  const body = JSON.stringify(new ApiError(status, detail).toProblem(newId('req')));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

const hasBody = (req: FastifyRequest) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * The limits fastify has no option for. Node checks the header and request timeouts of open
 * connections every connectionsCheckingInterval (30 s by default, so a timeout could take twice as
 * long as set): checked a few times per timeout instead.
 */
function limitConnections(server: Server, limits: ServerConfig['http']): void {
  server.headersTimeout = limits.headers_timeout_ms;
  server.maxConnections = limits.max_connections;
  // read when the server starts listening; Node's types know it only as a createServer option
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    30_000,
    Math.max(50, Math.floor(limits.headers_timeout_ms / 4)),
  );
}

function asApiError(err: FastifyError | ApiError): ApiError | null {
  if (err instanceof ApiError) return err;
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError(413, `request body exceeds ${BODY_LIMIT} bytes`);
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new ApiError(400, 'request body must be application/json');
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return new ApiError(err.statusCode, err.message);
  return null;
}

export async function buildServer(options: ServerOptions): Promise<AdminServer> {
  const log: Logger = options.logger ?? pino({ level: 'silent' });
  ensureDataDir(options.dataDir);
  const unlock = lockDataDir(options.dataDir);
  try {
    return await buildLockedServer(options, log, unlock);
  } catch (err) {
    unlock();
    throw err;
  }
}

async function buildLockedServer(options: ServerOptions, log: Logger, unlock: () => void): Promise<AdminServer> {
  const db = openDatabase(options.dataDir);
  // before any area starts its background work: each runs through these (background.ts)
  const tasks = attachBackgroundTasks(db, log.child({ area: 'background' }), options.background);
  const authenticate = createAuthenticator(db, options.config, log);
  const refusals = new RefusalLog(db, log, options.now);
  const writes = new WriteLimiter(db, log, options.config.rate_limit, authenticate, options.now);
  // A 401 of the admin API is counted for the audit, per source and minute; the gateway's front
  // door, which takes gateway keys rather than admin tokens, is not the admin API.
  const noteRefusal = (req: FastifyRequest, err: unknown) => {
    if (err instanceof Unauthorized && req.url.startsWith(`${API_PREFIX}/`)) refusals.note(req.ip ?? null, err.reason);
  };

  // The router could not read the path (FST_ERR_BAD_URL: bad percent-encoding;
  // FST_ERR_MAX_PARAM_LENGTH: a path parameter over 100 characters, the contract's id limit): a bad
  // parameter, 400, but only for a caller with a valid token, and audited as the mutation it was
  // meant to be (an auditor's is denied, 403), as when the contract's own schema refuses an id.
  const refuseUnroutable = async (
    req: FastifyRequest,
    reply: FastifyReply,
    problem: ApiError,
    outsideAdmin: ApiError = problem,
  ) => {
    // the gateway's front door has keys of its own: its answer needs no admin token
    if (!req.url.startsWith(`${API_PREFIX}/`)) return sendProblem(reply, outsideAdmin);
    req.mutation = unroutedMutation(req.method, req.url);
    try {
      // an attempt at a mutation is audited: its caller's rate is limited as a routed one's is
      req.principal = req.mutation
        ? await writes.admit(req, req.mutation.action)
        : await authenticate(req.headers.authorization);
    } catch (err) {
      noteRefusal(req, err);
      // a role-less SSO token's mutation attempt is audited as denied (auditFailure)
      return sendProblem(
        reply,
        asApiError(auditFailure(db, log, req, err) as FastifyError) ??
          new ApiError(500, 'internal error; see the server log with the request id'),
      );
    }
    return sendProblem(reply, auditFailure(db, log, req, problem) as ApiError);
  };

  const limits = options.config.http;
  const app = Fastify({
    loggerInstance: log,
    bodyLimit: BODY_LIMIT,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    // closing is answered below as problem+json, like every other error
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    clientErrorHandler: clientErrorProblem,
    frameworkErrors: (err, req, reply) => {
      if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
        // at the gateway, a workload name that long is one it does not have
        return void refuseUnroutable(
          req,
          reply,
          new ApiError(400, 'a path parameter is longer than 100 characters'),
          new ApiError(404, 'no such workload'),
        );
      }
      if (err.code === 'FST_ERR_BAD_URL')
        return void refuseUnroutable(req, reply, new ApiError(400, 'the URL is not validly percent-encoded'));
      return sendProblem(reply, new ApiError(500, 'internal error; see the server log with the request id'));
    },
    // slow or stalled clients (a byte every few seconds, a body stopped short) are cut off: 408
    requestTimeout: limits.request_timeout_ms,
    connectionTimeout: limits.idle_timeout_ms,
    keepAliveTimeout: limits.idle_timeout_ms,
    ...(options.tls ? { https: options.tls } : {}),
  }) as unknown as FastifyInstance;
  limitConnections(app.server, limits);

  let closing = false;
  app.addHook('onRequest', async (_req, reply) => {
    if (!closing) return;
    reply.header('Connection', 'close');
    throw new ApiError(503, 'the server is shutting down', { headers: { 'Retry-After': '5' } });
  });

  app.addHook('onSend', async (req, reply) => {
    reply.header('X-Request-Id', String(req.id));
    // refused before its body was read (401, 413 …): Node would go on reading it to reuse the
    // connection, for as long as the client cares to send
    if (hasBody(req) && !req.raw.complete) reply.header('Connection', 'close');
  });

  // Empty JSON bodies (POST …/revoke with Content-Type set) are "no body", not an error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, raw, done) => {
    let s: string;
    try {
      s = utf8.decode(raw as Buffer);
    } catch {
      return done(new ApiError(400, 'request body is not valid UTF-8'), undefined);
    }
    if (s.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(s, refuseUnsafeMembers));
    } catch (err) {
      done(
        err instanceof ApiError
          ? new ApiError(400, `malformed JSON: ${err.detail}`)
          : new ApiError(400, malformedJson(err)),
        undefined,
      );
    }
  });

  // Every error becomes problem+json; a failed or denied mutation attempt is audited with the
  // status the caller actually receives.
  app.setErrorHandler((caught: FastifyError | ApiError, req, reply) => {
    noteRefusal(req, caught);
    let err = asApiError(caught);
    if (!err) {
      req.log.error({ err: caught }, 'unhandled error');
      err = new ApiError(500, 'internal error; see the server log with the request id');
    }
    return sendProblem(reply, auditFailure(db, log, req, err) as ApiError);
  });
  app.setNotFoundHandler((req, reply) =>
    sendProblem(reply, new ApiError(404, `no route ${req.method} ${req.url.split('?')[0]}`)),
  );

  const g = { db, config: options.config, log, options, authenticate, authenticateWriter: writes.admit };
  await app.register(auditedRoutes, { db, config: options.config, authenticate, authenticateWriter: writes.admit });
  const areas = await registerAreas(app, g, routeGroups);
  // the demo serves no route: it seeds what the areas set up, and sends its traffic through the whole server
  const groups = [...areas, demoGroup({ ...g, app })];

  // built on its first request: every contract schema converted, which would delay every start (the demo's first board)
  let openapi: { text: string; etag: string } | undefined;
  app.get(`${API_PREFIX}/openapi.json`, async (req, reply) => {
    if (!openapi) {
      const text = JSON.stringify(buildOpenApi(VERSION));
      openapi = { text, etag: etagOf(text) };
    }
    reply.header('ETag', openapi.etag);
    if (req.headers['if-none-match'] === openapi.etag) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(openapi.text);
  });

  let closed = false;
  return {
    app,
    db,
    async close() {
      if (closed) return;
      closed = true;
      closing = true;
      for (const x of groups) await x.close?.();
      await app.close();
      // the refusals and the 429s counted so far are written before the database closes
      refusals.close();
      writes.close();
      await tasks.close();
      db.close();
      unlock();
    },
  };
}
