import Fastify, { type FastifyInstance, type FastifyError } from 'fastify';
import pino, { type Logger } from 'pino';
import { API_PREFIX, buildOpenApi } from '../contract/index.js';
import { VERSION } from '../version.js';
import { openDatabase, type Db } from './db/open.js';
import { createAuthenticator } from './auth.js';
import { ApiError } from './errors.js';
import { registerRoutes, sendProblem, etagOf, type GroupContext, type Handlers, type RouteGroup } from './http/route-kit.js';
import { routeGroups } from './routes/index.js';
import { recordAudit } from './audit.js';
import { newId } from './ids.js';
import type { ServerOptions } from './options.js';

export interface AdminServer {
  app: FastifyInstance;
  db: Db;
  /** stops background work, finishes in-flight requests, closes the database */
  close(): Promise<void>;
}

const BODY_LIMIT = 64 * 1024;

export async function buildServer(options: ServerOptions): Promise<AdminServer> {
  const log: Logger = options.logger ?? pino({ level: 'silent' });
  const db = openDatabase(options.dataDir);
  const app = Fastify({
    loggerInstance: log,
    bodyLimit: BODY_LIMIT,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ...(options.tls ? { https: options.tls } : {}),
  }) as unknown as FastifyInstance;

  app.addHook('onSend', async (req, reply) => {
    reply.header('X-Request-Id', String(req.id));
  });

  // Empty JSON bodies (POST …/revoke with Content-Type set) are "no body", not an error.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, text, done) => {
    const s = String(text);
    if (s.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(s));
    } catch (err) {
      done(new ApiError(400, `malformed JSON: ${(err as Error).message}`), undefined);
    }
  });

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    if (err instanceof ApiError) return sendProblem(reply, err);
    const fe = err as FastifyError;
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendProblem(reply, new ApiError(413, `request body exceeds ${BODY_LIMIT} bytes`));
    if (fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendProblem(reply, new ApiError(400, 'request body must be application/json'));
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return sendProblem(reply, new ApiError(fe.statusCode, fe.message));
    req.log.error({ err }, 'unhandled error');
    return sendProblem(reply, new ApiError(500, 'internal error; see the server log with the request id'));
  });
  app.setNotFoundHandler((req, reply) => sendProblem(reply, new ApiError(404, `no route ${req.method} ${req.url.split('?')[0]}`)));

  const authenticate = createAuthenticator(db, options.config);
  const g: GroupContext = { app, db, config: options.config, log, options, authenticate };
  const groups: RouteGroup[] = routeGroups.map((make) => make(g));
  const handlers: Partial<Handlers> = Object.assign({}, ...groups.map((x) => x.handlers));
  registerRoutes(g, handlers);

  // Settings are read only: any write is 405 with Allow, and the attempt is audited.
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: `${API_PREFIX}/settings`,
    handler: async (req, reply) => {
      const p = await authenticate(req.headers.authorization);
      recordAudit(db, {
        actor: { subject: p.subject, role: p.role }, action: 'settings.update', target: { type: 'settings', id: null },
        outcome: 'failed', status: 405, request_id: String(req.id), source_ip: req.ip ?? null, details: { method: req.method },
      });
      return sendProblem(reply, new ApiError(405, 'settings are read only', { headers: { Allow: 'GET, HEAD' } }));
    },
  });

  const openapi = JSON.stringify(buildOpenApi(VERSION));
  const openapiEtag = etagOf(openapi);
  app.get(`${API_PREFIX}/openapi.json`, async (req, reply) => {
    reply.header('ETag', openapiEtag);
    if (req.headers['if-none-match'] === openapiEtag) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(openapi);
  });

  let closed = false;
  return {
    app,
    db,
    async close() {
      if (closed) return;
      closed = true;
      for (const x of groups) await x.close?.();
      await app.close();
      db.close();
    },
  };
}
