import type { AuditEntry } from '../../contract/index.js';
import { requestAuditQuery, requestEntry } from '../kit/request-audit.js';
import { errorLines } from '../kit/error-lines.js';
import { routingChangeOf } from '../kit/audit-change.js';
import { sanitize } from '../../text/sanitize.js';
import { thousands } from '../../text/thousands.js';
import type { DashboardDeps } from './deps.js';

/** A change the action made, for the audit lookup afterwards (looked up once, by request id). */
export interface Mutation {
  route: string;
  action: string;
  requestId: string | undefined;
  lookup?: Promise<AuditLookup>;
}
type AuditLookup = { entry: AuditEntry } | { problem: string };

/** The audit entry a change produced (GET /audit?request_id=…); asked once per change. */
export function lookupAudit(deps: DashboardDeps, m: Mutation): Promise<AuditLookup> {
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
export async function auditLines(deps: DashboardDeps, mutations: Mutation[]): Promise<string[]> {
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
      // the request's outcome, not the change's: a check that ran and found a fault is a request that succeeded
      `  outcome  request ${entry.outcome} (HTTP ${entry.status})`,
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
