import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { API_PREFIX, mayMutate, routes, type RouteDef, type Role } from '../../contract/index.js';
import type { Db } from '../db/sqlite-driver.js';
import { RolelessToken, type Principal } from '../auth.js';
import { recordAudit, type AuditRecord } from '../audit.js';
import { ApiError } from '../errors.js';
import type { RoleRule, Target } from './route-kit.js';

/**
 * Auditing of the mutation attempts that do not succeed: refused for the caller's role (denied)
 * or failed anywhere from body parsing to the answer's check (failed). A success is audited by
 * audited-routes.ts inside the mutation's transaction.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** set by the route's onRequest hook, before the body is read */
    principal?: Principal;
    /** the attempt is already in the audit trail (denied, success or failed) */
    audited?: boolean;
    /** for auditing a failed mutation: its action, target and who may attempt it */
    mutation?: { action: string; allow: RoleRule; target(): Target };
    /** refused for its caller's rate (429, rate-limit.ts): counted in the minute's rate.limited entry, not audited alone */
    throttled?: boolean;
  }
}

export const permits = (rule: RoleRule, role: Role | null): boolean => rule === 'any role' || mayMutate(role);

/** The target of an attempt whose path could not be read: its type from the action (`gateway.key.revoke`). */
const unknownTarget = (action: string): Target => ({
  type: action.split('.').slice(0, -1).join('.') || action,
  id: null,
});

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
  const action = def?.action;
  if (!action) return undefined;
  return { action, allow: 'mutating roles', target: () => unknownTarget(action) };
}

/** Records a mutation refused for the caller's role and returns the 403 to answer with. */
export function denyMutation(db: Db, req: FastifyRequest): ApiError {
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
 * unreadable: the answer to an auditor's mutation never depends on the body. An attempt refused for
 * its caller's rate (429) is not audited here.
 */
export function auditFailure(db: Db, log: Logger, req: FastifyRequest, err: unknown): unknown {
  // over its caller's rate: counted in the minute's rate.limited entry (rate-limit.ts), not one by one
  if (req.throttled) return err;
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
    if (!permits(req.mutation.allow, req.principal.role)) return denyMutation(db, req);
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
