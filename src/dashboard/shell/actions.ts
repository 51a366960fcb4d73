import { ApiError } from '../../client/errors.js';
import { flash } from '../state/ui.js';
import type { AnyScreen, ScreenAction } from '../kit/screen-api.js';
import { errorLines } from '../kit/error-lines.js';
import { closeDialog, openDialog } from '../state/dialogs.js';
import type { DashboardDeps } from './deps.js';
import { refusal, refusalText } from './action-allowed.js';
import { auditLines, type Mutation } from './action-audit.js';
import { makeContext, type Resend, type Submitted } from './action-context.js';
import { actionKeyLabel } from './keymap.js';

/**
 * Refusals of what was sent (invalid, conflicting, not applicable): worth correcting and sending
 * again. Not 401/403 (the credential or role), 404 (gone), 429 or 5xx (try later).
 */
const REFUSALS = new Set([400, 409, 413, 422]);

/**
 * The one place an action key is handled: role-aware refusal (nothing is sent), then the run
 * with dialogs, errors in plain words, and after a change its result and audit entry. When the
 * appliance refuses what a form sent (and nothing was changed), the action runs again with its
 * forms prefilled with what was sent and the reason shown: correct and resend, or Esc.
 */
export async function runAction(
  deps: DashboardDeps,
  screen: AnyScreen,
  action: ScreenAction,
  row: unknown,
): Promise<void> {
  const why = refusal(deps, screen, action, row);
  if (why) {
    flash(deps.ui, refusalText(action, why), 'warn');
    return;
  }
  deps.ui.setState({ flash: null });
  try {
    // A refusal of what a form sent brings the action back with the forms prefilled; Esc there ends it.
    for (let resend: Resend | null = null; ;) {
      deps.ui.setState({ busy: action.label });
      resend = await runOnce(deps, screen, action, row, resend);
      if (!resend) return;
    }
  } finally {
    deps.ui.setState({ busy: null });
    deps.poller.refreshNow();
  }
}

/** One run of the action; what to offer again when the appliance refused what its forms sent. */
async function runOnce(
  deps: DashboardDeps,
  screen: AnyScreen,
  action: ScreenAction,
  row: unknown,
  resend: Resend | null,
): Promise<Resend | null> {
  const mutations: Mutation[] = [];
  const progress = new Set<number>();
  const submitted: Submitted[] = [];
  const ctx = makeContext(deps, screen, mutations, progress, submitted, resend);
  // The action has ended once its result is shown: "◌ label…" under the result would say it still runs.
  // Action keys wait for the result dialog anyway, as for any dialog.
  const ended = () => deps.ui.setState({ busy: null });
  try {
    const outcome = await action.run(ctx, row);
    for (const id of progress) closeDialog(deps.dialogs, id);
    if (mutations.length) {
      const audit = await auditLines(deps, mutations);
      ended();
      await openDialog(deps.dialogs, {
        kind: 'message',
        tone: outcome?.tone ?? 'ok',
        title: outcome?.title ?? `${action.label}: done`,
        lines: [...(outcome?.summary ?? []), '', ...audit],
      }).done;
    } else if (outcome) {
      ended();
      await openDialog(deps.dialogs, {
        kind: 'message',
        title: outcome.title ?? action.label,
        lines: outcome.summary,
        tone: outcome.tone,
      }).done;
    }
    return null;
  } catch (err) {
    for (const id of progress) closeDialog(deps.dialogs, id);
    // The stored sign-in expired: the sign-in dialog says so; the action is never re-run on its own.
    if (
      deps.signIn?.handle(err, {
        label: action.label,
        key: actionKeyLabel(screen, action, deps.keyOverrides),
        mutates: action.mutates,
        partly: mutations.length > 0,
      })
    )
      return null;
    const e = errorLines(err);
    // Only when nothing was changed yet: running the action again must not repeat a change.
    const again = err instanceof ApiError && REFUSALS.has(err.status) && submitted.length > 0 && mutations.length === 0;
    ended();
    await openDialog(deps.dialogs, {
      kind: 'message',
      tone: 'bad',
      title: `${action.label} failed`,
      lines: [
        e.headline,
        ...(e.reference ? [e.reference] : []),
        ...e.details,
        ...(mutations.length ? ['', 'Some changes were made before the failure; see the audit screen.'] : []),
        ...(again
          ? [
              '',
              'Nothing was changed. Closing this brings back the form with what you sent, to correct it and send it again (Esc there gives up).',
            ]
          : []),
      ],
    }).done;
    return again ? { drafts: submitted, reason: [`✕ Not accepted: ${e.headline}`, ...e.details.slice(0, 3)] } : null;
  }
}
