import { ROLES } from '../../contract/roles.js';

/** Plain words for an appliance answer that is about the credential, for a dialog or banner. */
export interface AuthFailureExplanation {
  /** one line */
  title: string;
  /** what happened and what to do */
  message: string;
  /** true when a new device sign-in is the fix (offer it; keep the screen and filters) */
  signInAgain: boolean;
}

export interface ProblemLike {
  status?: number;
  code?: string;
  detail?: string;
}

/**
 * Explains a 401 (and the two auth-related 403/503 answers) from the appliance. `credential`
 * says what was sent: the stored sign-in ('session') or a token from a file or variable
 * ('token'). Returns undefined for answers that are not about the credential.
 */
export function explainAuthFailure(
  status: number,
  problem: ProblemLike | undefined,
  credential: 'session' | 'token',
): AuthFailureExplanation | undefined {
  const detail = problem?.detail ?? '';
  if (status === 503 && /identity-provider/.test(detail)) {
    return {
      title: 'The appliance cannot check your sign-in right now',
      message:
        'The appliance cannot reach the identity provider to verify sign-ins. Nothing is wrong with your sign-in; try again in a minute.',
      signInAgain: false,
    };
  }
  if (status === 403 && /no role in claim/.test(detail)) {
    return {
      title: 'Signed in, but without a role on this appliance',
      message: `The identity provider vouched for you, but your account carries none of the groups or roles this appliance maps to ${ROLES.slice(0, -1).join(', ')} or ${ROLES.at(-1)} (${detail}). Ask an administrator of the identity provider to add you to one.`,
      signInAgain: false,
    };
  }
  if (status !== 401) return undefined;

  if (credential === 'token') {
    return {
      title: 'The appliance did not accept the token',
      message:
        'The token is unknown to the appliance, has expired, or was revoked. Ask an IT admin for a new one (appliance-admin token issue on the appliance), or sign in with appliance-admin login.',
      signInAgain: false,
    };
  }
  const reason = sessionReason(detail);
  return {
    title: 'Your sign-in was not accepted',
    message: `${reason} Sign in again to continue.`,
    signInAgain: true,
  };
}

function sessionReason(detail: string): string {
  if (/"exp"|expired/i.test(detail)) return 'Your sign-in has expired.';
  if (/"aud"|audience/i.test(detail)) {
    return "Your sign-in was issued for another service than this appliance (the audience differs): check that login's --audience or --resource matches the appliance's SSO audience.";
  }
  if (/"iss"|issuer/i.test(detail))
    return 'Your sign-in comes from another identity provider than the one this appliance trusts.';
  if (/signature|no applicable key|JWKS|key/i.test(detail)) {
    return "The appliance could not verify your sign-in's signature (the identity provider may have changed its keys, or the token was altered).";
  }
  if (/missing bearer/i.test(detail)) return 'No sign-in was sent with the request.';
  return 'The appliance rejected your sign-in (it may have been revoked).';
}
