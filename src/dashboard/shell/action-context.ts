import { ROUTE_META, type RouteMeta } from '../../contract/route-meta.js';
import { ApiError } from '../../client/errors.js';
import { learnForbidden } from '../state/session.js';
import { flash, patchScreen, screenState } from '../state/ui.js';
import type { ActionContext, AnyScreen } from '../kit/screen-api.js';
import { closeDialog, openDialog, updateDialog } from '../state/dialogs.js';
import type { FormField, FormValues } from '../kit/dialog-specs.js';
import { openLink } from './navigate.js';
import type { DashboardDeps } from './deps.js';
import { lookupAudit, type Mutation } from './action-audit.js';

/** A form the operator submitted during the run: what they sent, to offer it again after a refusal. */
export interface Submitted {
  fields: FormField[];
  values: FormValues;
}
/** Forms of a refused run, given back prefilled when the action runs again. */
export interface Resend {
  drafts: Submitted[];
  reason: string[];
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

export function makeContext(
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
