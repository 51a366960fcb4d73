/** Who is signed in and what they may do, as the screens and the shell read it. */

/** Where the session learned its role, in the order it tries them. */
type RoleSource = 'session' | 'claims' | 'learned' | 'unknown';

export interface SessionState {
  subject: string | null;
  role: string | null;
  /** null when the appliance did not say (no GET /session) */
  capabilities: string[] | null;
  source: RoleSource;
  expiresAt: string | null;
  /** false until resolution succeeded or definitively fell back */
  resolved: boolean;
  /** --read-only */
  forcedReadOnly: boolean;
  /** set by the first 403 on a change */
  learnedReadOnly: string | null;
  /** the credential itself was refused (401) */
  authError: string | null;
  /**
   * The stored sign-in needs a new device sign-in (it expired or was refused): why, in plain
   * words. Polling pauses and nothing can be changed until the sign-in succeeds.
   */
  signedOut: { title: string; message: string } | null;
}
