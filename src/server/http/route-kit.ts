import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { API_PREFIX, mayMutate, routes, type RouteDef, type RouteName } from '../../contract/index.js';
import type { Db } from '../db/open.js';
import type { ServerConfig } from '../config.js';
import type { Authenticator, Principal } from '../auth.js';
import { recordAudit } from '../audit.js';
import { assertMetadataOnly } from '../boundary.js';
import { ApiError, badRequest, type InvalidParam } from '../errors.js';
import type { ServerOptions } from '../options.js';

type Def<N extends RouteName> = (typeof routes)[N];
type In<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerInput<N extends RouteName> {
  params: In<Def<N> extends { params: infer P } ? P : undefined>;
  query: In<Def<N> extends { query: infer Q } ? Q : undefined>;
  body: In<Def<N> extends { body: infer B } ? B : undefined>;
}

export interface HandlerContext {
  db: Db;
  config: ServerConfig;
  principal: Principal;
  requestId: string;
  sourceIp: string | null;
  log: Logger;
  /** runs after the mutation's transaction commits (start background work here) */
  afterCommit(fn: () => void): void;
}

export interface Target { type: string; id: string | null }

export interface HandlerResult {
  body?: unknown;
  /** a streamed download instead of a JSON body */
  file?: { stream: Readable; filename: string; contentType: string };
  status?: number;
  headers?: Record<string, string>;
  /** audit target, when the handler knows it better than the default */
  target?: Target;
  /** audit details: metadata only, never a secret or content */
  details?: Record<string, unknown>;
}

/**
 * A handler for one contract route. Mutation handlers run synchronously inside one SQLite
 * transaction with their audit entry; a handler that must await (the identity check) sets
 * `async: true`, does no writes of its own, and gets its audit entry after it resolves.
 */
export interface Handler<N extends RouteName> {
  run(input: HandlerInput<N>, ctx: HandlerContext): HandlerResult | Promise<HandlerResult>;
  async?: boolean;
  /** audit target when the call fails before the handler can say */
  target?(input: { params: Record<string, string>; body: unknown }): Target;
}
export type Handlers = { [N in RouteName]: Handler<N> };

export interface GroupContext {
  app: FastifyInstance;
  db: Db;
  config: ServerConfig;
  log: Logger;
  options: ServerOptions;
  authenticate: Authenticator;
}
export interface RouteGroup {
  handlers: Partial<Handlers>;
  /** background work to stop on shutdown */
  close?(): void | Promise<void>;
}
export type GroupFactory = (g: GroupContext) => RouteGroup;

const zodIssues = (err: z.ZodError, prefix: string): InvalidParam[] =>
  err.issues.slice(0, 20).map((i) => ({
    name: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || prefix || '(body)',
    reason: i.message,
  }));

function parsePart(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) {
    const empty = value === undefined || value === null || (typeof value === 'object' && Object.keys(value as object).length === 0);
    if (!empty) throw badRequest(`this route takes no ${where}`, [{ name: where, reason: 'not allowed' }]);
    return undefined;
  }
  const r = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (!r.success) throw badRequest(`invalid ${where}`, zodIssues(r.error, where === 'body' ? '' : ''));
  return r.data;
}

export const etagOf = (text: string) => `"${createHash('sha1').update(text).digest('base64url')}"`;

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

export function sendProblem(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.options.headers ?? {})) reply.header(k, v);
  return reply.code(err.status).type('application/problem+json').send(err.toProblem(String(reply.request.id)));
}

const defaultTarget = (def: RouteDef, params: Record<string, string> | undefined): Target => ({
  type: (def.action ?? def.name).split('.').slice(0, -1).join('.') || def.name,
  id: params ? (Object.values(params)[0] ?? null) : null,
});

/** Registers every contract route with its handler: auth, roles, boundary, validation, audit, ETag. */
export function registerRoutes(g: GroupContext, handlers: Partial<Handlers>): void {
  const { app, db, log } = g;
  for (const [name, def] of Object.entries(routes) as [RouteName, RouteDef][]) {
    const handler = handlers[name] as Handler<RouteName> | undefined;
    if (!handler) throw new Error(`no handler for route ${name}`);
    app.route({
      method: def.method,
      url: API_PREFIX + def.path,
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const requestId = String(req.id);
        const principal = await g.authenticate(req.headers.authorization);
        const rawParams = (req.params ?? {}) as Record<string, string>;
        const actor = { subject: principal.subject, role: principal.role };
        const auditBase = { actor, action: def.action ?? def.name, request_id: requestId, source_ip: req.ip ?? null };
        const targetFor = () => handler.target?.({ params: rawParams, body: req.body }) ?? defaultTarget(def, rawParams);

        if (def.mutates && !mayMutate(principal.role)) {
          recordAudit(db, { ...auditBase, target: targetFor(), outcome: 'denied', status: 403, details: { reason: `role ${principal.role} may not mutate` } });
          throw new ApiError(403, `role ${principal.role} may not perform ${def.action}`);
        }

        const after: (() => void)[] = [];
        const ctx: HandlerContext = { db, config: g.config, principal, requestId, sourceIp: req.ip ?? null, log: req.log as unknown as Logger, afterCommit: (fn) => after.push(fn) };
        let result: HandlerResult;
        try {
          if (def.mutates) assertMetadataOnly(req.body);
          const input = {
            params: parsePart(def.params, req.params, 'params'),
            query: parsePart(def.query, req.query, 'query'),
            body: parsePart(def.body, req.body, 'body'),
          } as HandlerInput<RouteName>;
          if (!def.mutates) {
            result = await handler.run(input, ctx);
          } else if (handler.async) {
            result = await handler.run(input, ctx);
            recordAudit(db, { ...auditBase, target: result.target ?? targetFor(), outcome: 'success', status: result.status ?? def.status, details: result.details });
          } else {
            result = db.transaction(() => {
              const r = handler.run(input, ctx);
              if (r instanceof Promise) throw new Error(`mutation handler ${name} must be synchronous`);
              recordAudit(db, { ...auditBase, target: r.target ?? targetFor(), outcome: 'success', status: r.status ?? def.status, details: r.details });
              return r;
            })();
          }
        } catch (err) {
          if (def.mutates) {
            const status = err instanceof ApiError ? err.status : 500;
            const details = err instanceof ApiError ? { code: err.code, detail: err.detail.slice(0, 300) } : { code: 'SVC-ADMIN-500' };
            try {
              recordAudit(db, { ...auditBase, target: targetFor(), outcome: 'failed', status, details });
            } catch (auditErr) {
              log.error({ err: auditErr }, 'could not audit a failed mutation');
            }
          }
          throw err;
        }
        for (const fn of after) setImmediate(fn);

        for (const [k, v] of Object.entries(result.headers ?? {})) reply.header(k, v);
        if (result.file) {
          reply.header('Content-Disposition', `attachment; filename="${result.file.filename}"`);
          return reply.code(result.status ?? def.status).type(result.file.contentType).send(result.file.stream);
        }
        const body = def.response === 'file' ? result.body : (def.response as z.ZodType).parse(result.body);
        const text = JSON.stringify(body);
        if (def.method === 'GET') {
          const etag = etagOf(text);
          reply.header('ETag', etag).header('Cache-Control', 'no-cache');
          if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send();
        }
        return reply.code(result.status ?? def.status).type('application/json; charset=utf-8').send(text);
      },
    });
  }
}
