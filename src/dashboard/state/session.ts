import { createStore } from 'zustand/vanilla';
import type { SessionState } from '../kit/session-state.js';
import type { Disabled } from '../kit/disabled.js';
import { mayMutate } from '../../contract/roles.js';
import { MUTATION_ACTIONS } from '../../contract/route-meta.js';
import type { ApiClient } from '../../client/api-client.js';
import { ApiError, NOT_THIS_API, TransportError } from '../../client/errors.js';
import { sanitize } from '../../text/sanitize.js';
import { AuthSessionError } from '../../client/session/errors.js';
import { claimsOf } from './jwt.js';

export type SessionStore = ReturnType<typeof createSessionStore>;

export function createSessionStore(opts: { forcedReadOnly?: boolean } = {}) {
  return createStore<SessionState>(() => ({
    subject: null,
    role: null,
    capabilities: null,
    source: 'unknown',
    expiresAt: null,
    resolved: false,
    forcedReadOnly: opts.forcedReadOnly ?? false,
    learnedReadOnly: null,
    authError: null,
    signedOut: null,
  }));
}

/** Why this session may not change anything, or null when it may. */
export function readOnlyReason(s: SessionState): string | null {
  return readOnlyBlock(s)?.reason ?? null;
}

/** A learned read-only's short words: the refusal itself (learnForbidden's text), which says more than "read-only". */
const learnedShort = (text: string) => /^the appliance (refused a change \(403 [^)]*\))/.exec(text)?.[1] ?? 'read-only';

/** Why this session may not change anything, and what kind of reason it is; null when it may. */
function readOnlyBlock(s: SessionState): Disabled | null {
  if (s.forcedReadOnly) return { kind: 'read-only', reason: 'read-only session (--read-only)', short: 'read-only' };
  if (s.signedOut) return { kind: 'signed-out', reason: 'signed out: press r to sign in again', short: 'signed out' };
  if (s.learnedReadOnly)
    return { kind: 'read-only', reason: s.learnedReadOnly, short: learnedShort(s.learnedReadOnly) };
  if (s.role && (s.role === 'auditor' || (s.source !== 'unknown' && !mayMutate(s.role as never))))
    return { kind: 'role', reason: `role ${s.role} is read-only`, short: 'read-only' };
  if (s.capabilities && !s.capabilities.some((c) => MUTATION_ACTIONS.includes(c)))
    return { kind: 'role', reason: 'your session holds no change capabilities', short: 'read-only' };
  return null;
}

/** Why an action is disabled for this session, or null when it is allowed. */
export function actionBlockReason(s: SessionState, action: { mutates: boolean; capability?: string }): Disabled | null {
  if (!action.mutates) return null;
  const ro = readOnlyBlock(s);
  if (ro) return ro;
  if (action.capability && s.capabilities && !s.capabilities.includes(action.capability))
    return { kind: 'role', reason: `your role lacks ${action.capability}`, short: 'not your role' };
  return null;
}

/** A 403 on a change: from now on the session is read-only (the server said so). */
export function learnForbidden(store: SessionStore, err: ApiError) {
  if (err.status !== 403 || store.getState().learnedReadOnly) return;
  store.setState({
    learnedReadOnly: `the appliance refused a change (403 ${err.code}): this session is read-only`,
    source: store.getState().source === 'unknown' ? 'learned' : store.getState().source,
  });
}

/**
 * GET /session; when the appliance has no such route (404, or JSON that is no session at all),
 * the token's JWT claims; failing that the role stays unknown until the first 403 teaches it.
 * Other transport errors leave the session unresolved so the poller tries again. `unchecked`: the
 * answer was read while the client deferred its checks (ApiClient.deferChecks).
 */
export async function resolveSession(
  client: ApiClient,
  token: string | (() => Promise<string>),
  store: SessionStore,
): Promise<{ unchecked: boolean }> {
  try {
    const { data, unchecked } = await client.call('session');
    // read as sent, before the first frame: what is no session at all waits for its checked read
    if (unchecked && (typeof data.subject !== 'string' || typeof data.role !== 'string')) return { unchecked };
    store.setState({
      subject: sanitize(data.subject, 200),
      role: sanitize(data.role, 50),
      capabilities: Array.isArray(data.capabilities) ? data.capabilities.map((c) => sanitize(c, 100)) : null,
      expiresAt: data.expires_at ?? null,
      source: 'session',
      resolved: true,
      authError: null,
    });
    return { unchecked: unchecked === true };
  } catch (err) {
    // JSON that is no session answer at all (see foreignAnswer): the route is not there, as a 404 says
    if (err instanceof TransportError && err.causeCode !== NOT_THIS_API) throw err;
    if (err instanceof ApiError && err.status === 401) throw err;
    // The stored sign-in could not give a token: the caller asks for a new sign-in.
    if (err instanceof AuthSessionError) throw err;
    if (err instanceof ApiError && err.status >= 500 && err.status !== 501) throw err;
    // No such route (404/405/501) or another refusal: fall back to the token's claims.
    const claims = claimsOf(typeof token === 'string' ? token : await token().catch(() => ''));
    if (claims?.role) {
      store.setState({
        subject: claims.subject,
        role: claims.role,
        expiresAt: claims.expiresAt,
        capabilities: null,
        source: 'claims',
        resolved: true,
      });
    } else {
      store.setState({
        subject: claims?.subject ?? null,
        role: null,
        capabilities: null,
        source: 'unknown',
        resolved: true,
      });
    }
    return { unchecked: false };
  }
}
