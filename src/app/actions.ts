import { ROUTE_META, type RouteMeta } from '../contract/route-meta.js';
import { ApiError } from '../client/errors.js';
import { actionBlockReason, learnForbidden } from '../store/session.js';
import { flash, patchScreen, screenState } from '../store/ui.js';
import type { ActionContext, AnyScreen, ScreenAction } from '../ui/screen-api.js';
import { errorLines } from '../ui/ErrorBanner.js';
import { sanitize } from '../ui/sanitize.js';
import type { FormValues } from '../ui/dialogs/form-model.js';
import { closeDialog, openDialog, updateDialog } from './dialogs.js';
import type { DashboardDeps } from './deps.js';

/** A change the action made, for the audit lookup afterwards. */
interface Mutation { route: string; action: string; requestId: string | undefined }

/** Why pressing this action's key does nothing right now, or null when it may run. */
export function whyNot(deps: DashboardDeps, action: ScreenAction, row: unknown): string | null {
  const blocked = actionBlockReason(deps.session.getState(), action);
  if (blocked) return `disabled: ${blocked}`;
  if (action.needsRow && row === undefined) return 'select a row first';
  try {
    return action.unavailable?.(row) ?? null;
  } catch {
    return null;
  }
}

/**
 * The one place an action key is handled: role-aware refusal (nothing is sent), then the run
 * with dialogs, errors in plain words, and after a change its result and audit entry.
 */
export async function runAction(deps: DashboardDeps, screen: AnyScreen, action: ScreenAction, row: unknown): Promise<void> {
  const reason = whyNot(deps, action, row);
  if (reason) {
    flash(deps.ui, `${action.label}: ${reason}.${action.mutates ? ' Nothing was sent.' : ''}`, 'warn');
    return;
  }
  const busy = deps.ui.getState().busy;
  if (busy) {
    flash(deps.ui, `${busy} is still running; ${action.label} waits until it ends.`, 'warn');
    return;
  }
  deps.ui.setState({ busy: action.label, flash: null });
  const mutations: Mutation[] = [];
  const progress = new Set<number>();
  const ctx = makeContext(deps, screen, mutations, progress);
  try {
    const outcome = await action.run(ctx, row);
    for (const id of progress) closeDialog(deps.dialogs, id);
    if (mutations.length) {
      const audit = await auditLines(deps, mutations);
      await openDialog(deps.dialogs, {
        kind: 'message',
        tone: outcome?.tone ?? 'ok',
        title: outcome?.title ?? `${action.label}: done`,
        lines: [...(outcome?.summary ?? []), '', ...audit],
      }).done;
    } else if (outcome) {
      await openDialog(deps.dialogs, { kind: 'message', title: outcome.title ?? action.label, lines: outcome.summary, tone: outcome.tone }).done;
    }
  } catch (err) {
    for (const id of progress) closeDialog(deps.dialogs, id);
    // The stored sign-in expired: the sign-in dialog says so; the action is never re-run on its own.
    if (deps.signIn?.handle(err, { label: action.label, key: action.key, mutates: action.mutates, partly: mutations.length > 0 })) return;
    const e = errorLines(err);
    await openDialog(deps.dialogs, {
      kind: 'message',
      tone: 'bad',
      title: `${action.label} failed`,
      lines: [e.headline, ...(e.reference ? [e.reference] : []), ...e.details, ...(mutations.length ? ['', 'Some changes were made before the failure; see the audit screen.'] : [])],
    }).done;
  } finally {
    deps.ui.setState({ busy: null });
    deps.poller.refreshNow();
  }
}

function makeContext(deps: DashboardDeps, screen: AnyScreen, mutations: Mutation[], progress: Set<number>): ActionContext {
  const dialog = <T>(spec: Parameters<typeof openDialog>[1]) => openDialog<T>(deps.dialogs, spec).done;
  return {
    confirm: (o) => dialog<boolean>({ kind: 'confirm', ...o }).then(Boolean),
    typeToConfirm: (o) => dialog<boolean>({ kind: 'typeToConfirm', ...o }).then(Boolean),
    async form<V extends FormValues>(o: Parameters<ActionContext['form']>[0]): Promise<V | null> {
      const v = await dialog<FormValues | null>({ kind: 'form', ...o });
      return (v ?? null) as V | null;
    },
    async pick<T>(o: Parameters<ActionContext['pick']>[0]) {
      const items = o.items as { value: T; label: string; hint?: string }[];
      const i = await dialog<number | null>({ kind: 'pick', title: o.title, message: o.message, items: items.map(({ label, hint }) => ({ label, hint })) });
      return i === null || i === undefined ? null : (items[i]?.value ?? null);
    },
    message: (o) => dialog<void>({ kind: 'message', ...o }),
    revealOnce: (o) => dialog<void>({ kind: 'secret', ...o }),
    progress(o) {
      const controller = new AbortController();
      const { id, done } = openDialog(deps.dialogs, { kind: 'progress', title: o.title, lines: o.lines ?? [] });
      progress.add(id);
      void done.then((v) => {
        progress.delete(id);
        if (v === 'cancelled') controller.abort();
      });
      return {
        signal: controller.signal,
        update: (p) => updateDialog(deps.dialogs, id, p),
        close: () => closeDialog(deps.dialogs, id),
      };
    },
    async call(route, input = {}) {
      const def: RouteMeta = ROUTE_META[route];
      try {
        const res = await deps.client.call(route, input);
        if (def.mutates) mutations.push({ route, action: def.action ?? route, requestId: res.requestId });
        return res.data;
      } catch (err) {
        if (def.mutates && err instanceof ApiError && err.status === 403) learnForbidden(deps.session, err);
        throw err;
      }
    },
    download: (route, query, dest, onProgress, signal) => deps.client.download(route, query, dest, onProgress, signal),
    refresh: () => deps.poller.refreshNow(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
          clearTimeout(t);
          resolve();
        }, { once: true });
      }),
    get state() {
      return screenState(deps.ui.getState(), screen.name);
    },
    setExtra: (patch, opts) =>
      patchScreen(deps.ui, screen.name, {
        extra: { ...screenState(deps.ui.getState(), screen.name).extra, ...patch },
        ...(opts?.top ? { cursor: 0, selectedKey: null, scroll: 0 } : {}),
      }),
    get session() {
      return deps.session.getState();
    },
    refreshIntervalMs: deps.refreshMs,
    copy: (text) => deps.clipboard(text),
  };
}

/** Finds the audit entry each change produced (GET /audit, matched on the request id). */
async function auditLines(deps: DashboardDeps, mutations: Mutation[]): Promise<string[]> {
  const subject = deps.session.getState().subject;
  const out: string[] = [];
  for (const m of mutations.slice(-3)) {
    if (!m.requestId) {
      out.push(`Audit: the appliance sent no request id for ${m.action}; look it up on the audit screen.`);
      continue;
    }
    try {
      const query: Record<string, unknown> = { action: m.action, limit: 50 };
      if (subject) query.actor = subject;
      const { data } = await deps.client.call('listAudit', { query });
      const entry = (data.data ?? []).find((e) => e.request_id === m.requestId);
      if (!entry) {
        out.push(`Audit: no entry found yet for request ${m.requestId}.`);
        continue;
      }
      out.push(
        `Audit entry ${entry.id}`,
        `  at       ${entry.at}`,
        `  actor    ${entry.actor?.subject ?? '?'} (${entry.actor?.role ?? '?'})`,
        `  action   ${entry.action} → ${entry.target?.type ?? '?'} ${entry.target?.id ?? ''}`.trimEnd(),
        `  outcome  ${entry.outcome} (${entry.status})`,
        `  request  ${entry.request_id}`,
      );
    } catch (err) {
      const e = errorLines(err);
      out.push(`Audit: could not read the entry for request ${sanitize(m.requestId, 100)}: ${e.headline}${e.reference ? ` (${e.reference})` : ''}`);
    }
  }
  return out;
}
