import type { AnyScreen, ScreenAction } from '../kit/screen-api.js';
import type { Disabled } from '../kit/disabled.js';
import { bySession } from '../kit/disabled.js';
import { actionBlockReason } from '../state/session.js';
import { screenState } from '../state/ui.js';
import type { DashboardDeps } from './deps.js';

/**
 * Why pressing this action's key does nothing right now, or null when it may run: what the hints
 * and the help show beside it (role-aware disabling is here, never in a screen). The action's own
 * `unavailable` judges the row and the screen's state (a filter to clear that is not set).
 */
export function whyNot(deps: DashboardDeps, screen: AnyScreen, action: ScreenAction, row: unknown): Disabled | null {
  const blocked = actionBlockReason(deps.session.getState(), action);
  if (blocked) return blocked;
  if (action.needsRow && row === undefined) return { kind: 'no-selection', reason: 'select a row first' };
  try {
    const reason = action.unavailable?.(row, screenState(deps.ui.getState(), screen.name)) ?? null;
    return reason === null ? null : { kind: 'unavailable', reason };
  } catch {
    return null;
  }
}

/** Why the key does nothing when pressed now: `whyNot`, or another action still running. */
export function refusal(deps: DashboardDeps, screen: AnyScreen, action: ScreenAction, row: unknown): Disabled | null {
  const why = whyNot(deps, screen, action, row);
  if (why) return why;
  const busy = deps.ui.getState().busy;
  return busy ? { kind: 'busy', reason: `${busy} is still running; ${action.label} waits until it ends` } : null;
}

/** What pressing a refused action's key says. */
export function refusalText(action: ScreenAction, why: Disabled): string {
  if (why.kind === 'busy') return `${why.reason}.`;
  const text = bySession(why) ? `disabled: ${why.reason}` : why.reason;
  return `${action.label}: ${text}.${action.mutates ? ' Nothing was sent.' : ''}`;
}
