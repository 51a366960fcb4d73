import { ApiError } from '../../client/errors.js';
import {
  AuthSessionError,
  DeviceLoginError,
  IdentityProviderUnavailableError,
  NotSignedInError,
  SessionExpiredError,
  type LoginSettings,
} from '../../client/session/errors.js';
import { explainAuthFailure } from '../../client/session/explain.js';
import { currentSession, type SessionInfo } from '../../client/session/info.js';
import type { Poller } from '../state/poller.js';
import type { SessionStore } from '../state/session.js';
import { flash, type UiStore } from '../state/ui.js';
import { closeDialog, openDialog, updateDialog, type DialogSpec, type DialogStore } from '../state/dialogs.js';

/** The stored sign-in the dashboard's token comes from. */
export interface SignInSetup {
  /** the session file (also where a new sign-in is stored) */
  file: string;
  /** what a new device sign-in asks for when the file no longer says (it was removed meanwhile) */
  settings?: LoginSettings;
}

export interface SignInWhy {
  title: string;
  message: string;
}

/**
 * The part of the dashboard (src/dashboard/shell/deps.ts) the sign-in works with: it pauses polling, says so
 * in the session and asks in a dialog.
 */
export interface SignInDeps {
  poller: Pick<Poller, 'pause' | 'resume'>;
  session: SessionStore;
  ui: UiStore;
  dialogs: DialogStore;
}

/** An action the expired sign-in stopped: it is never run again on its own. */
export interface Interrupted {
  label: string;
  key: string;
  mutates: boolean;
  /** some of its changes went through before it stopped */
  partly?: boolean;
}

/**
 * Why `err` means the stored sign-in needs a new device sign-in, in plain words; null for any
 * other failure. An identity provider that cannot be reached is not one: that is temporary.
 */
function signInNeeded(err: unknown): SignInWhy | null {
  if (err instanceof SessionExpiredError) {
    return {
      title: 'Your sign-in has expired',
      message: `Your sign-in has expired: ${err.reason}. Sign in again to continue.`,
    };
  }
  if (err instanceof NotSignedInError) {
    return {
      title: 'You are signed out',
      message: 'The stored sign-in is gone (appliance-admin logout in another terminal?). Sign in again to continue.',
    };
  }
  if (
    err instanceof AuthSessionError &&
    !(err instanceof IdentityProviderUnavailableError) &&
    !(err instanceof DeviceLoginError)
  ) {
    return { title: 'The stored sign-in cannot be used', message: `${err.message}. Signing in again replaces it.` };
  }
  if (err instanceof ApiError && err.status === 401) {
    const why = explainAuthFailure(401, err, 'session');
    if (why?.signInAgain) return { title: why.title, message: why.message };
  }
  return null;
}

function stoppedWhen(i: Interrupted): string {
  if (!i.mutates) return '';
  return i.partly ? ' (some of its changes were made before: see the audit screen)' : ' (nothing was changed)';
}

type Outcome = 'signed-in' | 'cancelled' | { failed: string };

/** A refused token is renewed without asking at most this often (else: a new sign-in). */
const QUIET_RENEWAL_EVERY_MS = 30_000;

/**
 * Asks for a new device sign-in when the stored one expires, without leaving the screen: the
 * poller pauses (nothing is sent with a dead credential), the screen, its filters and its last
 * data stay, and after the approval polling picks up where it stopped. Esc leaves the dashboard
 * signed out and read-only; r asks again.
 */
export class SignIn {
  readonly #deps: SignInDeps;
  readonly #setup: SignInSetup;
  #flow: Promise<void> | null = null;
  #interrupted: Interrupted | null = null;
  #quietRenewalAt = 0;

  constructor(deps: SignInDeps, setup: SignInSetup) {
    this.#deps = deps;
    this.#setup = setup;
  }

  /** For the poller and the actions: true when `err` calls for a new sign-in, which is then asked for. */
  handle(err: unknown, interrupted?: Interrupted): boolean {
    const why = signInNeeded(err);
    if (!why) return false;
    if (interrupted) this.#interrupted = interrupted;
    this.#deps.poller.pause();
    if (this.#flow) return true;
    // The appliance refused a token the session still thought good (clocks apart, keys
    // rotated at the provider): a renewal may be all it takes, once in a while.
    const quiet =
      err instanceof ApiError &&
      !this.#deps.session.getState().signedOut &&
      Date.now() - this.#quietRenewalAt > QUIET_RENEWAL_EVERY_MS;
    this.#start(() => (quiet ? this.#renewQuietly() : this.#ask(why)));
    return true;
  }

  /** Shows the sign-in dialog unless it is up already (r does this while signed out). */
  open() {
    if (this.#flow) return;
    this.#start(() =>
      this.#ask(
        this.#deps.session.getState().signedOut ?? { title: 'Sign in again', message: 'Sign in again to continue.' },
      ),
    );
  }

  #start(flow: () => Promise<void>) {
    this.#flow = flow().finally(() => {
      this.#flow = null;
    });
  }

  async #renewQuietly() {
    this.#quietRenewalAt = Date.now();
    try {
      const { getAccessToken } = await import('../../client/session/session.js');
      await getAccessToken({ file: this.#setup.file, refreshMarginMs: Number.POSITIVE_INFINITY });
    } catch (err) {
      const cannot = signInNeeded(err);
      if (cannot) return this.#ask(cannot);
      // the provider cannot be reached: the poller shows that, and retries
    }
    this.#resume(false);
    this.#tellInterrupted('Sign-in renewed', 'The appliance refused the sign-in; it has been renewed.');
  }

  async #ask(why: SignInWhy) {
    const { dialogs, session } = this.#deps;
    if (!session.getState().signedOut) session.setState({ signedOut: why });
    let ask = this.#explainSpec(session.getState().signedOut ?? why);
    for (;;) {
      const choice = await openDialog<string>(dialogs, ask).done;
      if (choice !== 'start') return this.#stayOut();
      const outcome = await this.#deviceFlow();
      if (outcome === 'signed-in') return;
      if (outcome === 'cancelled') return this.#stayOut();
      ask = {
        kind: 'signIn',
        phase: 'failed',
        title: 'The sign-in did not complete',
        lines: [outcome.failed, '', 'Nothing changed here: the screen, its filters and its last data stay.'],
      };
    }
  }

  #explainSpec(why: SignInWhy): DialogSpec {
    const i = this.#interrupted;
    const interrupted = i
      ? [
          `${i.label} was stopped${stoppedWhen(i)}. It will not be retried on its own: after signing in, press ${i.key} to do it again.`,
          '',
        ]
      : [];
    return {
      kind: 'signIn',
      phase: 'explain',
      title: why.title,
      lines: [why.message, '', ...interrupted, 'Signing in again keeps this screen, its filters and its data.'],
    };
  }

  #settings(): LoginSettings | undefined {
    try {
      return currentSession({ file: this.#setup.file })?.settings ?? this.#setup.settings;
    } catch {
      return this.#setup.settings;
    }
  }

  /** Runs the device authorization grant in the open dialog; Esc aborts it. */
  async #deviceFlow(): Promise<Outcome> {
    const { dialogs } = this.#deps;
    const settings = this.#settings();
    if (!settings) {
      return {
        failed:
          'This dashboard does not know which identity provider to ask. Run appliance-admin login --issuer URL --client-id ID in another terminal, then press Enter here.',
      };
    }
    const controller = new AbortController();
    const dialog = openDialog<string>(dialogs, {
      kind: 'signIn',
      phase: 'waiting',
      title: 'Sign in again',
      lines: [`Asking the identity provider (${settings.issuer}) for a sign-in code…`],
    });
    void dialog.done.then((v) => {
      if (v === 'cancel') controller.abort();
    });
    try {
      // Loaded on the first sign-in only: the OpenID client and the QR encoder are not small.
      const { login, renderQr } = await import('../../client/session/index.js');
      const who = await login({
        ...settings,
        file: this.#setup.file,
        signal: controller.signal,
        onPrompt: (p) => {
          const until = p.expiresAt.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
          updateDialog(dialogs, dialog.id, {
            lines: [],
            prompt: {
              verificationUri: p.verificationUri,
              verificationUriComplete: p.verificationUriComplete,
              userCode: p.userCode,
              until,
              qr: renderQr(p.verificationUriComplete ?? p.verificationUri, { color: false }),
            },
          });
        },
      });
      closeDialog(dialogs, dialog.id);
      this.#signedIn(who);
      return 'signed-in';
    } catch (err) {
      closeDialog(dialogs, dialog.id);
      if (controller.signal.aborted || (err instanceof DeviceLoginError && err.kind === 'cancelled'))
        return 'cancelled';
      return { failed: err instanceof Error ? err.message : String(err) };
    }
  }

  #signedIn(who: SessionInfo) {
    this.#resume(true);
    const name =
      who.name && who.subject && who.name !== who.subject
        ? `${who.name} (${who.subject})`
        : (who.subject ?? 'an unnamed account');
    const said = `Signed in again as ${name}; the dashboard is up to date again.`;
    if (!this.#tellInterrupted('Signed in again', said)) flash(this.#deps.ui, said, 'ok');
  }

  /** Polls again; `newSignIn`: maybe another account, so its role is read afresh. */
  #resume(newSignIn: boolean) {
    const { session, poller } = this.#deps;
    session.setState({
      signedOut: null,
      authError: null,
      resolved: false,
      ...(newSignIn ? { learnedReadOnly: null } : {}),
    });
    poller.resume();
  }

  /** Says that the stopped action was not run again (true), if there was one. */
  #tellInterrupted(title: string, first: string): boolean {
    const i = this.#interrupted;
    this.#interrupted = null;
    if (!i) return false;
    void openDialog(this.#deps.dialogs, {
      kind: 'message',
      tone: 'ok',
      title,
      lines: [first, '', `${i.label} was not retried${stoppedWhen(i)}: press ${i.key} to do it now.`],
    });
    return true;
  }

  #stayOut() {
    flash(
      this.#deps.ui,
      'Not signed in: the last data stays on screen and nothing can be changed; press r to sign in again.',
      'warn',
    );
  }
}
