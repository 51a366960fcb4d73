import { ROUTE_META, type RouteMeta } from '../../contract/route-meta.js';
import { ApiError } from '../../client/errors.js';
import { requestAuditQuery, requestEntry } from '../kit/request-audit.js';
import { actionBlockReason, learnForbidden } from '../state/session.js';
import { flash, patchScreen, screenState } from '../state/ui.js';
import type { ActionContext, AnyScreen, ScreenAction } from '../kit/screen-api.js';
import type { AuditEntry } from '../../contract/index.js';
import { errorLines } from '../kit/error-lines.js';
import { routingChangeOf } from '../kit/audit-change.js';
import { sanitize } from '../../text/sanitize.js';
import { thousands } from '../../text/thousands.js';
import { closeDialog, openDialog, updateDialog } from '../state/dialogs.js';
import { openLink } from './navigate.js';
import type { DashboardDeps } from './deps.js';
import type { FormField, FormValues } from '../kit/dialog-specs.js';

/** A change the action made, for the audit lookup afterwards (looked up once, by request id). */
interface Mutation {
  route: string;
  action: string;
  requestId: string | undefined;
  lookup?: Promise<AuditLookup>;
}
type AuditLookup = { entry: AuditEntry } | { problem: string };

/** A form the operator submitted during the run: what they sent, to offer it again after a refusal. */
interface Submitted {
  fields: FormField[];
  values: FormValues;
}
/** Forms of a refused run, given back prefilled when the action runs again. */
interface Resend {
  drafts: Submitted[];
  reason: string[];
}

/**
 * Refusals of what was sent (invalid, conflicting, not applicable): worth correcting and sending
 * again. Not 401/403 (the credential or role), 404 (gone), 429 or 5xx (try later).
 */
const REFUSALS = new Set([400, 409, 413, 422]);

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
        key: action.key,
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

/** The field as the operator last sent it. */
function prefilled(f: FormField, v: FormValues[string] | undefined): FormField {
  if (v === undefined) return f;
  switch (f.kind) {
    case 'text':
      return { ...f, initial: v === null ? '' : String(v) };
    case 'limit':
      return { ...f, initial: typeof v === 'number' ? v : null };
    case 'number':
      return { ...f, initial: typeof v === 'number' ? v : undefined };
    case 'select':
      return { ...f, initial: String(v) };
  }
}

const formShape = (fields: FormField[]) => fields.map((f) => `${f.kind}:${f.name}`).join('\n');

function makeContext(
  deps: DashboardDeps,
  screen: AnyScreen,
  mutations: Mutation[],
  progress: Set<number>,
  submitted: Submitted[],
  resend: Resend | null,
): ActionContext {
  const dialog = <T>(spec: Parameters<typeof openDialog>[1]) => openDialog<T>(deps.dialogs, spec).done;
  const drafts = [...(resend?.drafts ?? [])];
  return {
    confirm: (o) => dialog<boolean>({ kind: 'confirm', ...o }).then(Boolean),
    typeToConfirm: (o) => dialog<boolean>({ kind: 'typeToConfirm', ...o }).then(Boolean),
    async form<V extends FormValues>(o: Parameters<ActionContext['form']>[0]): Promise<V | null> {
      // After a refusal: the same form (same fields) opens with what was sent and the reason above it.
      const i = drafts.findIndex((d) => formShape(d.fields) === formShape(o.fields));
      const draft = i >= 0 ? drafts.splice(i, 1)[0] : undefined;
      const spec = draft
        ? {
            ...o,
            fields: o.fields.map((f) => prefilled(f, draft.values[f.name])),
            message: [
              ...resend!.reason,
              ...(o.message === undefined ? [] : Array.isArray(o.message) ? o.message : [o.message]),
            ],
          }
        : o;
      const v = await dialog<FormValues | null>({ kind: 'form', ...spec });
      if (v) submitted.push({ fields: o.fields, values: v });
      return (v ?? null) as V | null;
    },
    async pick<T>(o: Parameters<ActionContext['pick']>[0]) {
      const items = o.items as { value: T; label: string; hint?: string }[];
      const i = await dialog<number | null>({
        kind: 'pick',
        title: o.title,
        message: o.message,
        items: items.map(({ label, hint }) => ({ label, hint })),
      });
      return i === null || i === undefined ? null : (items[i]?.value ?? null);
    },
    message: (o) => dialog<string | undefined>({ kind: 'message', ...o }).then((key) => key ?? null),
    revealOnce: (o) => dialog<void>({ kind: 'secret', ...o }),
    progress(o) {
      const controller = new AbortController();
      const { id, done } = openDialog(deps.dialogs, {
        kind: 'progress',
        title: o.title,
        lines: o.lines ?? [],
        ...(o.escStops ? { escStops: true } : {}),
      });
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
    async audit(route) {
      const m = mutations.filter((x) => x.route === route).at(-1);
      if (!m) return null;
      const r = await lookupAudit(deps, m);
      return 'entry' in r ? r.entry : null;
    },
    served: async (route, input = {}) => (await deps.client.call(route, { ...input, keepServed: true })).served,
    tokenMatcher: () => deps.client.tokenMatcher(),
    stream: (route, query, signal) => deps.client.stream(route, query, signal),
    download: (route, query, dest, onProgress, signal) => deps.client.download(route, query, dest, onProgress, signal),
    refresh: () => deps.poller.refreshNow(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            resolve();
          },
          { once: true },
        );
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
    get refreshMs() {
      return deps.poller.refreshMs;
    },
    exportFolder: deps.exportFolder,
    applianceUrl: deps.client.displayUrl,
    ...(deps.auditKey ? { auditKey: deps.auditKey } : {}),
    copy: (text) => deps.clipboard(text),
    open(link) {
      const refused = openLink(deps.ui, deps.screens, link);
      if (refused) flash(deps.ui, refused, 'warn');
    },
  };
}

/** The audit entry a change produced (GET /audit?request_id=…); asked once per change. */
function lookupAudit(deps: DashboardDeps, m: Mutation): Promise<AuditLookup> {
  m.lookup ??= (async (): Promise<AuditLookup> => {
    if (!m.requestId)
      return { problem: `Audit: the appliance sent no request id for ${m.action}; look it up on the audit screen.` };
    try {
      const { data } = await deps.client.call('listAudit', { query: requestAuditQuery(m.requestId) });
      const entry = requestEntry(data, m.requestId, m.action);
      return entry ? { entry } : { problem: `Audit: no entry found yet for request ${m.requestId}.` };
    } catch (err) {
      const e = errorLines(err);
      return {
        problem: `Audit: could not read the entry for request ${sanitize(m.requestId, 100)}: ${e.headline}${e.reference ? ` (${e.reference})` : ''}`,
      };
    }
  })();
  return m.lookup;
}

/** The details the appliance recorded (metadata only), one line per key. */
function detailLines(details: Record<string, unknown> | undefined): string[] {
  const entries = Object.entries(details ?? {});
  if (!entries.length) return [];
  const text = (v: unknown) => sanitize(typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)), 400);
  return [
    '  details',
    ...entries.slice(0, 12).map(([k, v]) => `    ${sanitize(k, 60)}: ${text(v)}`),
    ...(entries.length > 12 ? [`    … ${entries.length - 12} more (see the audit screen)`] : []),
  ];
}

/** The audit entry of each change, for the result dialog. */
async function auditLines(deps: DashboardDeps, mutations: Mutation[]): Promise<string[]> {
  const out: string[] = [];
  for (const m of mutations.slice(-3)) {
    const r = await lookupAudit(deps, m);
    if ('problem' in r) {
      out.push(r.problem);
      continue;
    }
    const entry = r.entry;
    const change = routingChangeOf(entry);
    out.push(
      `Audit entry ${entry.id}${entry.seq === undefined ? '' : ` · #${thousands(entry.seq)}`}`,
      `  at       ${entry.at}`,
      `  actor    ${entry.actor?.subject ?? '?'} (${entry.actor?.role ?? '?'})`,
      `  action   ${entry.action}`,
      // the target by the name it had then, as the audit list shows it, then its id
      `  target   ${targetText(entry.target)}`,
      `  outcome  ${entry.outcome} (${entry.status})`,
      `  request  ${entry.request_id}`,
      ...(change ? [`  change   ${sanitize(change, 400)}`] : []),
      ...detailLines(entry.details),
    );
  }
  return out;
}

function targetText(t: { type?: string; id?: string | null; name?: string | null } | null | undefined): string {
  const ref = `${t?.type ?? '?'} ${t?.id ?? ''}`.trimEnd();
  return t?.name ? `${t.name} (${ref})` : ref;
}
