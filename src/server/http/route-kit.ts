import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { API_PREFIX, mayMutate, routes, type RouteDef, type RouteName } from '../../contract/index.js';
import type { Db } from '../db/open.js';
import type { ServerConfig } from '../config.js';
import { RolelessToken, type Authenticator, type Principal } from '../auth.js';
import { recordAudit, type AuditRecord } from '../audit.js';
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
  /** a HEAD request: the answer's headers are sent, never its body */
  head: boolean;
}

/** An audit target; `name` is what it is called now (a key's name), kept in the entry as it was then. */
export interface Target {
  type: string;
  id: string | null;
  name?: string | null;
}

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

/** One entry per offending field, named by its path (an unknown field by its own name). */
const zodIssues = (err: z.ZodError, where: string): InvalidParam[] =>
  err.issues.slice(0, 20).flatMap((i) => {
    const at = i.path.map(String);
    const paths = i.code === 'unrecognized_keys' ? i.keys.map((k) => [...at, k]) : [at];
    return paths.map((path) => ({ name: path.join('.') || `(${where})`, reason: i.message }));
  });

function parsePart(schema: z.ZodType | undefined, value: unknown, where: string): unknown {
  if (!schema) {
    // `{}` or no body at all; an array, even an empty one, is a body this route does not take
    const empty =
      value === undefined ||
      value === null ||
      (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);
    if (!empty) throw badRequest(`this route takes no ${where}`, [{ name: where, reason: 'not allowed' }]);
    return undefined;
  }
  const r = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (!r.success) throw badRequest(`invalid ${where}`, zodIssues(r.error, where));
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
  return reply
    .code(err.status)
    .type('application/problem+json')
    .send(err.toProblem(String(reply.request.id)));
}

const defaultTarget = (def: RouteDef, params: Record<string, string> | undefined): Target => ({
  type: (def.action ?? def.name).split('.').slice(0, -1).join('.') || def.name,
  id: params ? (Object.values(params)[0] ?? null) : null,
});

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the route's onRequest hook, before the body is read */
    principal?: Principal;
    /** the attempt is already in the audit trail (denied, success or failed) */
    audited?: boolean;
    /** for auditing a failed mutation: its action and target */
    mutation?: { action: string; target(): Target };
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const routePattern = (def: RouteDef) =>
  new RegExp(`^${escapeRegExp(API_PREFIX + def.path).replace(/:\w+/g, '[^/]*')}$`);

/**
 * The mutation a request would have reached had the router been able to read its path (an id
 * badly percent-encoded or over 100 characters), so that the attempt is answered and audited like
 * any other: the id itself is unknown.
 */
export function unroutedMutation(method: string, url: string): FastifyRequest['mutation'] {
  const path = url.split('?')[0];
  const def = (Object.values(routes) as RouteDef[]).find(
    (d) => d.mutates && d.method === method && routePattern(d).test(path),
  );
  return def && { action: def.action ?? def.name, target: () => defaultTarget(def, undefined) };
}

/** Records a mutation refused for the caller's role and returns the 403 to answer with. */
function denyMutation(db: Db, req: FastifyRequest): ApiError {
  const p = req.principal!;
  recordDenied(db, req, { subject: p.subject, role: p.role }, `role ${p.role} may not mutate`);
  return new ApiError(403, `role ${p.role} may not perform ${req.mutation!.action}`);
}

function recordDenied(db: Db, req: FastifyRequest, actor: AuditRecord['actor'], reason: string): void {
  req.audited = true;
  recordAudit(db, {
    actor,
    action: req.mutation!.action,
    target: req.mutation!.target(),
    outcome: 'denied',
    status: 403,
    request_id: String(req.id),
    source_ip: req.ip ?? null,
    details: { reason },
  });
}

/**
 * Audits a failed mutation attempt by an authenticated caller, whatever failed: body parsing,
 * the metadata boundary, validation or the handler. Called by the server's error handler.
 * A caller whose role may not mutate gets the 403 (audited as denied) even when its body was
 * unreadable: the answer to an auditor's mutation never depends on the body.
 */
export function auditFailure(db: Db, log: Logger, req: FastifyRequest, err: unknown): unknown {
  if (err instanceof RolelessToken && req.mutation && !req.audited) {
    // a verified token that names its caller but grants no role: denied, under its subject
    try {
      recordDenied(db, req, { subject: err.subject, role: null }, err.detail);
    } catch (auditErr) {
      log.error({ err: auditErr }, 'could not audit a denied mutation');
    }
    return err;
  }
  if (!req.principal || !req.mutation || req.audited) return err;
  try {
    if (!mayMutate(req.principal.role)) return denyMutation(db, req);
    req.audited = true;
    const status = err instanceof ApiError ? err.status : ((err as { statusCode?: number }).statusCode ?? 500);
    const details =
      err instanceof ApiError ? { code: err.code, detail: err.detail.slice(0, 300) } : { code: `SVC-ADMIN-${status}` };
    recordAudit(db, {
      actor: { subject: req.principal.subject, role: req.principal.role },
      action: req.mutation.action,
      target: req.mutation.target(),
      outcome: 'failed',
      status,
      request_id: String(req.id),
      source_ip: req.ip ?? null,
      details,
    });
  } catch (auditErr) {
    log.error({ err: auditErr }, 'could not audit a failed mutation');
  }
  return err;
}

/** The answer's JSON text, checked against the route's response schema; null for a streamed file. */
function answerText(def: RouteDef, r: HandlerResult): string | null {
  if (r.file) return null;
  return JSON.stringify(def.response === 'file' ? r.body : (def.response as z.ZodType).parse(r.body));
}

/**
 * Registers every contract route with its handler. Authentication runs on request, before the
 * body is read, so an unauthenticated body is never parsed; the role rule runs once the body is
 * parsed, so a denied attempt is audited with its target. Then: boundary, validation, handler,
 * the answer's schema check, audit, ETag.
 */
export function registerRoutes(g: GroupContext, handlers: Partial<Handlers>): void {
  const { app, db } = g;
  for (const [name, def] of Object.entries(routes) as [RouteName, RouteDef][]) {
    const handler = handlers[name] as Handler<RouteName> | undefined;
    if (!handler) throw new Error(`no handler for route ${name}`);
    const action = def.action ?? def.name;
    app.route({
      method: def.method,
      url: API_PREFIX + def.path,
      onRequest: async (req: FastifyRequest) => {
        if (def.mutates) {
          const rawParams = (req.params ?? {}) as Record<string, string>;
          req.mutation = {
            action,
            target: () => handler.target?.({ params: rawParams, body: req.body }) ?? defaultTarget(def, rawParams),
          };
        }
        req.principal = await g.authenticate(req.headers.authorization);
      },
      preValidation: async (req: FastifyRequest) => {
        if (def.mutates && !mayMutate(req.principal!.role)) throw denyMutation(db, req);
      },
      handler: async (req: FastifyRequest, reply: FastifyReply) => {
        const principal = req.principal!;
        const requestId = String(req.id);
        const success = (r: HandlerResult) => {
          recordAudit(db, {
            actor: { subject: principal.subject, role: principal.role },
            action,
            target: r.target ?? req.mutation!.target(),
            outcome: 'success',
            status: r.status ?? def.status,
            request_id: requestId,
            source_ip: req.ip ?? null,
            details: r.details,
          });
          req.audited = true;
        };
        const after: (() => void)[] = [];
        const ctx: HandlerContext = {
          db,
          config: g.config,
          principal,
          requestId,
          sourceIp: req.ip ?? null,
          log: req.log as unknown as Logger,
          afterCommit: (fn) => after.push(fn),
          head: req.method === 'HEAD',
        };
        if (def.mutates) assertMetadataOnly(req.body);
        const input = {
          params: parsePart(def.params, req.params, 'params'),
          query: parsePart(def.query, req.query, 'query'),
          body: parsePart(def.body, req.body, 'body'),
        } as HandlerInput<RouteName>;
        // The answer is checked against its schema before the audit entry is written and the
        // transaction commits: an answer that fails its check rolls the change back, and the
        // attempt is audited as failed (auditFailure), not as a success the caller never saw.
        let result: HandlerResult;
        let text: string | null;
        if (!def.mutates) {
          result = await handler.run(input, ctx);
          text = answerText(def, result);
        } else if (handler.async) {
          result = await handler.run(input, ctx);
          text = answerText(def, result);
          success(result);
        } else {
          [result, text] = db.transaction(() => {
            const r = handler.run(input, ctx);
            if (r instanceof Promise) throw new Error(`mutation handler ${name} must be synchronous`);
            const t = answerText(def, r);
            success(r);
            return [r, t] as const;
          })();
        }
        for (const fn of after) setImmediate(fn);

        for (const [k, v] of Object.entries(result.headers ?? {})) reply.header(k, v);
        if (text === null) {
          const file = result.file!;
          reply.header('Content-Disposition', `attachment; filename="${file.filename}"`);
          return reply
            .code(result.status ?? def.status)
            .type(file.contentType)
            .send(file.stream);
        }
        if (def.method === 'GET') {
          const etag = etagOf(text);
          reply.header('ETag', etag).header('Cache-Control', 'no-cache');
          if (etagMatches(req.headers['if-none-match'], etag)) return reply.code(304).send();
        }
        return reply
          .code(result.status ?? def.status)
          .type('application/json; charset=utf-8')
          .send(text);
      },
    });
  }
}
