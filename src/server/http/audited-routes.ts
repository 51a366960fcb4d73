import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { API_PREFIX, routes, type RouteDef, type RouteName } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import type { Authenticator, Principal } from '../auth.js';
import { recordAudit } from '../audit.js';
import { backgroundTasks } from '../background.js';
import { assertMetadataOnly } from '../boundary.js';
import { denyMutation, permits } from './attempt-audit.js';
import { parsePart } from './parse-input.js';
import { etagMatches, etagOf } from './reply.js';
import type { HandlerContext, HandlerInput, HandlerResult, RoleRule, RouteHandler, Target } from './route-kit.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Serves contract route `name` on this instance as `handler` declares it: authentication, its
     * role rule, validation against the contract's schemas, and for a mutation its transaction and
     * audit entry. Decorated by the audited-routes plugin, registered once on the server.
     */
    auditedRoute<N extends RouteName>(name: N, handler: RouteHandler<N>): void;
  }
}

interface AuditedRoutesOptions {
  db: Db;
  config: ServerConfig;
  authenticate: Authenticator;
  /** authenticate for a request that writes the audit trail: its caller's rate is limited (rate-limit.ts) */
  authenticateWriter(req: FastifyRequest, action: string): Promise<Principal>;
}

/** A route handler with its route's types forgotten, as the wrapper below runs every one. */
interface AnyHandler {
  allow: RoleRule;
  audit: { action: string; target(attempt: { params: Record<string, string>; body: unknown }): Target } | null;
  async?: boolean;
  run(input: HandlerInput<RouteName>, ctx: HandlerContext): HandlerResult | Promise<HandlerResult>;
}

/** The answer's JSON text, checked against the route's response schema; null for a streamed file. */
function answerText(def: RouteDef, r: HandlerResult): string | null {
  if (r.file) return null;
  return JSON.stringify(def.response === 'file' ? r.body : (def.response as z.ZodType).parse(r.body));
}

/**
 * The contract tells the client and OpenAPI which routes mutate and under which action; a server
 * declaration saying otherwise (only possible past the types) would make them wrong.
 */
function assertAsContracted(name: RouteName, def: RouteDef, h: AnyHandler): void {
  if ((h.allow === 'mutating roles') !== def.mutates || h.audit?.action !== def.action) {
    throw new Error(`route ${name}: its role rule or audit action is not the contract's (src/contract/route-meta.ts)`);
  }
}

/**
 * Authentication runs on request, before the body is read, so an unauthenticated body is never
 * parsed; so does the rate limit of a request that will write the audit trail (a mutation or an
 * attempt at one, the seal, an export; not a HEAD, which exports nothing), so that one over it is
 * answered 429 before any work. The role rule runs once the body is parsed, so a denied attempt is
 * audited with its target. Then: boundary, validation, handler, the answer's schema check, audit, ETag.
 */
function serve(
  app: FastifyInstance,
  { db, config, authenticate, authenticateWriter }: AuditedRoutesOptions,
  name: RouteName,
  h: AnyHandler,
) {
  const def = routes[name] as RouteDef;
  assertAsContracted(name, def, h);
  const { audit } = h;
  const writes = audit?.action ?? def.auditedAs;
  app.route({
    method: def.method,
    url: API_PREFIX + def.path,
    onRequest: async (req: FastifyRequest) => {
      if (audit) {
        const params = (req.params ?? {}) as Record<string, string>;
        req.mutation = { action: audit.action, allow: h.allow, target: () => audit.target({ params, body: req.body }) };
      }
      req.principal =
        writes && req.method !== 'HEAD'
          ? await authenticateWriter(req, writes)
          : await authenticate(req.headers.authorization);
    },
    preValidation: async (req: FastifyRequest) => {
      if (!permits(h.allow, req.principal!.role)) throw denyMutation(db, req);
    },
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      const principal = req.principal!;
      const requestId = String(req.id);
      const recordSuccess = (r: HandlerResult) =>
        recordAudit(db, {
          actor: { subject: principal.subject, role: principal.role },
          action: audit!.action,
          target: r.target ?? req.mutation!.target(),
          outcome: 'success',
          status: r.status ?? def.status,
          request_id: requestId,
          source_ip: req.ip ?? null,
          details: r.details,
        });
      const after: (() => void)[] = [];
      const ctx: HandlerContext = {
        db,
        config,
        principal,
        requestId,
        sourceIp: req.ip ?? null,
        log: req.log as unknown as Logger,
        afterCommit: (fn) => after.push(fn),
        head: req.method === 'HEAD',
      };
      if (audit) assertMetadataOnly(req.body);
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
      if (!audit) {
        result = await h.run(input, ctx);
        text = answerText(def, result);
      } else if (h.async) {
        result = await h.run(input, ctx);
        text = answerText(def, result);
        recordSuccess(result);
        req.audited = true;
      } else {
        [result, text] = db.transaction(() => {
          const r = h.run(input, ctx);
          if (r instanceof Promise) throw new Error(`mutation handler ${name} must be synchronous`);
          if (r.afterAudit) {
            const answered = { ...r, body: r.afterAudit(recordSuccess(r)) };
            return [answered, answerText(def, answered)] as const;
          }
          const t = answerText(def, r);
          recordSuccess(r);
          return [r, t] as const;
        })();
        // only once committed: an entry rolled back with a failure leaves the attempt to auditFailure
        req.audited = true;
      }
      // after the answer is on its way, each as a background task: one that throws is logged and
      // shown on /deployment (background.ts), never an uncaught exception that ends the process
      for (const fn of after)
        setImmediate(() =>
          backgroundTasks(db).run(`${name} (after commit)`, fn, "not retried; the next such call's runs as usual"),
        );

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

const plugin: FastifyPluginAsync<AuditedRoutesOptions> = async (app, options) => {
  app.decorate('auditedRoute', function (this: FastifyInstance, name: RouteName, handler: RouteHandler<RouteName>) {
    serve(this, options, name, handler as unknown as AnyHandler);
  });
};

/**
 * The audit, transaction and role wrapper of every contract route, as a fastify plugin. It does
 * not get a scope of its own ('skip-override', what fastify-plugin sets), so its decorator reaches
 * every area plugin registered after it.
 */
export const auditedRoutes = Object.assign(plugin, { [Symbol.for('skip-override')]: true });
