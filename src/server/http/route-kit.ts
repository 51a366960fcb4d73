import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ROUTE_META, RouteName, routes } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import type { ServerConfig } from '../config.js';
import type { Authenticator, Principal } from '../auth.js';
import type { ServerOptions } from '../options.js';

/**
 * What an area file (src/server/routes/<area>.ts) declares its routes with. A route's method, path
 * and schemas are the contract's (src/contract), found by the route's name; everything the server
 * adds (who may call it, its audit action and target, its handler) is declared beside its handler,
 * and the audited-routes plugin (audited-routes.ts) runs it.
 */

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
  /** audit target, when the handler knows it better than `audit.target` */
  target?: Target;
  /** audit details: metadata only, never a secret or content */
  details?: Record<string, unknown>;
  /**
   * An answer that names the route's own audit entry (the seal: the entry and a checkpoint of it):
   * called in the transaction once the entry is written, with its id; what it returns is the body.
   * A throw rolls the entry back with the rest, and the attempt is audited as failed.
   */
  afterAudit?: (auditId: string) => unknown;
}

/**
 * Who may call a route, once authenticated: any role, or only the roles that may change state
 * (the contract's MUTATING_ROLES). The contract says which (`mutates`); the types hold the two equal.
 */
export type RoleRule = 'any role' | 'mutating roles';

/** The request as it arrived, before validation: what an audit target of a refused attempt can go by. */
interface Attempt {
  params: Record<string, string>;
  body: unknown;
}

/** How a mutation is audited: its action (the contract's, which the types hold equal) and its target. */
interface AuditRule<A extends string = string> {
  action: A;
  /** the target of an attempt refused or failed before the handler could name it (HandlerResult.target) */
  target(attempt: Attempt): Target;
}

type Meta<N extends RouteName> = (typeof ROUTE_META)[N];

/**
 * The server side of one contract route. A route with an audit rule is a mutation: it runs
 * synchronously inside one SQLite transaction with its audit entry; one that must await (the
 * identity check) sets `async: true`, does no writes of its own, and is audited once it resolves.
 * A route without one (`audit: null`) is a read and is not audited.
 */
export interface RouteHandler<N extends RouteName> {
  allow: Meta<N>['mutates'] extends true ? 'mutating roles' : 'any role';
  audit: Meta<N> extends { action: infer A extends string } ? AuditRule<A> : null;
  async?: boolean;
  run(input: HandlerInput<N>, ctx: HandlerContext): HandlerResult | Promise<HandlerResult>;
}
export type Handlers = { [N in RouteName]: RouteHandler<N> };

/** What an area is given: `app` is its own fastify plugin instance. */
export interface GroupContext {
  app: FastifyInstance;
  db: Db;
  config: ServerConfig;
  log: Logger;
  options: ServerOptions;
  authenticate: Authenticator;
  /**
   * authenticate, for a request that will write the audit trail under `action`: its caller's rate is
   * limited (rate-limit.ts), and past the limit it is answered 429 before anything else
   */
  authenticateWriter(req: FastifyRequest, action: string): Promise<Principal>;
}

/** An area of the server: its routes, and the background work it runs. */
export interface RouteGroup {
  handlers: Partial<Handlers>;
  /** background work to stop on shutdown */
  close?(): void | Promise<void>;
}
export type GroupFactory = (g: GroupContext) => RouteGroup;
