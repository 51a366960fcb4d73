import { createStore } from 'zustand/vanilla';
import type { Exchange } from '../../client/exchange-log.js';
import { equivalentCommand } from '../../client/equivalent-command.js';
import type { ActionLogEntry } from '../kit/action-log.js';

interface ActionLogState {
  entries: ActionLogEntry[];
}

export type ActionLogStore = ReturnType<typeof createActionLog>;

/** Since the dashboard started, newest first; the oldest go past this many. */
export const ACTION_LOG_MAX = 500;

export function createActionLog() {
  return createStore<ActionLogState>(() => ({ entries: [] }));
}

/**
 * Keeps what the operator did, not what the dashboard polled: every change (succeeded or not) and
 * every export. A poll's failure is already on screen (the status line) and would repeat each refresh.
 */
export function recordExchange(log: ActionLogStore, e: Exchange) {
  if (e.method === 'GET' && !e.download) return;
  log.setState((s) => {
    const entry: ActionLogEntry = {
      seq: (s.entries[0]?.seq ?? 0) + 1,
      at: e.at,
      route: e.route,
      method: e.method,
      path: e.path,
      status: e.status,
      requestId: e.requestId,
      error: e.error,
      // made now, so the request's body (and anything secret in it) is not kept
      command: equivalentCommand(e),
    };
    return { entries: [entry, ...s.entries].slice(0, ACTION_LOG_MAX) };
  });
}
