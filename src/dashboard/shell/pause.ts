import { flash } from '../state/ui.js';
import type { DashboardDeps } from './deps.js';

/** The pause key: polling stops (the data on screen stays, PAUSED in the header) or starts again. */
export function togglePause(deps: DashboardDeps) {
  if (deps.poller.held) {
    deps.poller.release();
    return flash(deps.ui, 'polling resumed');
  }
  deps.poller.hold();
  flash(deps.ui, 'polling paused: the data stays as it is (r refreshes once, P resumes)', 'warn');
}
