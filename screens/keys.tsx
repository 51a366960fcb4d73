import type { GatewayKey, Quota } from '../src/contract/index.js';
import { DisplayName } from '../src/contract/common.js';
import { defineScreen, type ActionContext, type FormField } from '../src/ui/screen-api.js';
import { confirmOverwrite, mergeValues } from './shared/merge.js';
import { ago, limitText, shortTime } from '../src/ui/format.js';
import { toneOf } from '../src/ui/theme.js';
import { auditHistoryAction } from './shared/audit-history.js';

/** "60 / 40k / ∞": requests per minute, tokens per minute, tokens per day (∞ = unlimited). */
const quotaText = (q: Quota | undefined) =>
  q ? `${short(q.requests_per_minute)} / ${short(q.tokens_per_minute)} / ${short(q.tokens_per_day)}` : '–';
function short(v: number | null | undefined): string {
  if (v === null || v === undefined) return '∞';
  if (v >= 1_000_000) return `${+(v / 1_000_000).toFixed(1)}M`;
  if (v >= 10_000) return `${+(v / 1000).toFixed(1)}k`;
  return String(v);
}

const quotaFields = (q?: Partial<Quota>): FormField[] => [
  { kind: 'limit', name: 'requests_per_minute', label: 'Requests / minute', initial: q?.requests_per_minute ?? null, hint: 'whole number, or empty for unlimited' },
  { kind: 'limit', name: 'tokens_per_minute', label: 'Tokens / minute', initial: q?.tokens_per_minute ?? null, hint: 'whole number, or empty for unlimited' },
  { kind: 'limit', name: 'tokens_per_day', label: 'Tokens / day', initial: q?.tokens_per_day ?? null, hint: 'whole number, or empty for unlimited' },
];
const quotaOf = (v: Record<string, unknown>): Quota => ({
  requests_per_minute: (v.requests_per_minute as number | null) ?? null,
  tokens_per_minute: (v.tokens_per_minute as number | null) ?? null,
  tokens_per_day: (v.tokens_per_day as number | null) ?? null,
});
const QUOTA_FIELDS = [
  { name: 'requests_per_minute', label: 'Requests / minute' },
  { name: 'tokens_per_minute', label: 'Tokens / minute' },
  { name: 'tokens_per_day', label: 'Tokens / day' },
] as const;
const quotaWords = (q: Quota) => `${limitText(q.requests_per_minute)} requests/min, ${limitText(q.tokens_per_minute)} tokens/min, ${limitText(q.tokens_per_day)} tokens/day`;

/** The key as the appliance has it now (the list is paged), or undefined when it is gone. */
async function currentKey(ctx: ActionContext, id: string): Promise<GatewayKey | undefined> {
  for (let after: string | undefined, pages = 0; pages < 100; pages++) {
    const page = await ctx.call('listKeys', { query: { limit: 500, ...(after ? { after } : {}) } });
    const found = (page.data ?? []).find((k) => k.id === id);
    if (found || !page.has_more || !page.next_cursor) return found;
    after = page.next_cursor;
  }
  return undefined;
}

/** Who revoked the key first, from the audit trail around its revocation time (best effort). */
async function revokedBy(ctx: ActionContext, key: GatewayKey): Promise<string | null> {
  const at = key.revoked_at ? Date.parse(key.revoked_at) : NaN;
  if (!Number.isFinite(at)) return null;
  try {
    const found = await ctx.call('listAudit', {
      query: { action: 'gateway.key.revoke', outcome: 'success', start_time: new Date(at - 5000).toISOString(), end_time: new Date(at + 5000).toISOString(), limit: 500 },
    });
    const first = (found.data ?? []).find((e) => e.target?.id === key.id && e.details?.already_revoked !== true);
    return first ? `${first.actor.subject}${first.actor.role ? ` (${first.actor.role})` : ''}` : null;
  } catch {
    return null;
  }
}

const revoked = (k: GatewayKey | undefined) => (k?.status === 'revoked' ? 'the key is revoked; its quota is frozen' : null);

export const keysScreen = defineScreen<GatewayKey>({
  name: 'keys',
  title: 'Gateway keys',
  resources: () => [{ id: 'keys', route: 'listKeys', query: { limit: 500 } }],
  list: {
    // At 80 columns the minimums add up to the width exactly: the prefix (what tells keys apart),
    // the day of creation and "12 min" (the header says "ago") stay whole, the name gives way
    // first. Enter shows the exact times.
    columns: [
      { header: 'Name', value: (k) => k.name, grow: true, minWidth: 15, maxWidth: 32 },
      { header: 'Status', value: (k) => k.status, tone: (k) => toneOf(k.status), minWidth: 7 },
      { header: 'Prefix', value: (k) => k.prefix, minWidth: 16, maxWidth: 16 },
      { header: 'Quota rpm/tpm/tpd', value: (k) => quotaText(k.quota), minWidth: 17, maxWidth: 24 },
      { header: 'Last used', value: (k) => ago(k.last_used_at).replace(/ ago$/, ''), minWidth: 7 },
      { header: 'Created', value: (k) => shortTime(k.created_at).slice(0, 10), width: 10 },
    ],
    rowKey: (k) => k.id,
    empty: 'No gateway keys yet. Press n to create one.',
    summary: (rows) => `${rows.length} key${rows.length === 1 ? '' : 's'} · ${rows.filter((k) => k.status === 'active').length} active`,
  },
  actions: [
    {
      key: 'n',
      label: 'new key',
      mutates: true,
      capability: 'gateway.key.create',
      async run(ctx) {
        const v = await ctx.form({
          title: 'Create a gateway key',
          fields: [
            {
              kind: 'text', name: 'name', label: 'Name', required: true, maxLength: 64, hint: 'who or what will use the key',
              validate: (s) => (DisplayName.safeParse(s).success ? null : 'printable text, 1 to 64 characters'),
            },
            ...quotaFields(),
          ],
          submitLabel: 'create',
        });
        if (!v) return;
        // The secret lives only in this call and the dialog; neither outlives the dialog.
        const created = await ctx.call('createKey', { body: { name: String(v.name), quota: quotaOf(v) } });
        const summary = [`Created ${created.name} (${created.id}), prefix ${created.prefix}.`, `Quota (requests/min, tokens/min, tokens/day): ${quotaText(created.quota)}`];
        await ctx.revealOnce({
          title: `Secret for ${created.name}`,
          secret: created.secret,
          lines: ['Give this secret to the client that calls the gateway.'],
        });
        ctx.refresh();
        return { title: 'Key created', summary };
      },
    },
    {
      key: 'u',
      label: 'set quota',
      mutates: true,
      capability: 'gateway.key.quota',
      needsRow: true,
      unavailable: revoked,
      async run(ctx, k) {
        const key = k!;
        // the form starts from what the appliance has now, not from the last poll
        const fresh = await currentKey(ctx, key.id);
        if (fresh?.status === 'revoked') return { title: 'Nothing to change', tone: 'warn', summary: [`${key.name} was revoked meanwhile; its quota is frozen.`] };
        const base = fresh?.quota ?? key.quota;
        const v = await ctx.form({
          title: `Quota for ${key.name}`,
          message: `Now: ${quotaWords(base)}.`,
          fields: quotaFields(base),
          submitLabel: 'save',
        });
        if (!v) return;
        const mine = quotaOf(v);
        // only the values changed here are written onto the latest quota
        const now = await currentKey(ctx, key.id);
        if (now?.status === 'revoked') return { title: 'Nothing saved', tone: 'warn', summary: [`${key.name} was revoked while the form was open; its quota is frozen. Nothing was sent.`] };
        const theirs = now?.quota ?? base;
        const m = mergeValues(QUOTA_FIELDS, base, mine, theirs);
        if (m.changed.length === 0) return { title: 'Nothing saved', summary: [`You changed no value of ${key.name}'s quota; nothing was sent.`] };
        if (m.conflicts.length && !(await confirmOverwrite(ctx, { what: `The quota of ${key.name}`, conflicts: m.conflicts, show: limitText }))) {
          return { title: 'Nothing saved', tone: 'warn', summary: [`Nothing was sent: ${key.name} keeps the other change (${quotaWords(theirs)}). Open the form again to start from the latest values.`] };
        }
        if (m.same) return { title: 'Nothing saved', summary: [`${key.name} already has this quota; nothing was sent.`] };
        const updated = await ctx.call('setQuota', { params: { id: key.id }, body: { ...theirs, ...m.merged } as Quota });
        return { title: 'Quota saved', summary: [`${updated.name}: ${quotaWords(updated.quota)}.`] };
      },
    },
    {
      key: 'x',
      label: 'revoke',
      mutates: true,
      capability: 'gateway.key.revoke',
      needsRow: true,
      unavailable: (k) => (k?.status === 'revoked' ? 'the key is already revoked' : null),
      async run(ctx, k) {
        const key = k!;
        const ok = await ctx.typeToConfirm({
          title: `Revoke ${key.name}?`,
          message: ['Revoking is permanent: every client using this key is refused from then on.', `Key ${key.id}, prefix ${key.prefix}.`],
          expected: key.name,
        });
        if (!ok) return;
        const after = await ctx.call('revokeKey', { params: { id: key.id } });
        // The appliance answers a second revoke like the first; its audit entry says it changed nothing.
        if ((await ctx.audit('revokeKey'))?.details?.already_revoked === true) {
          const by = await revokedBy(ctx, after);
          return {
            title: 'Key was already revoked',
            tone: 'warn',
            summary: [
              `${after.name} (${after.id}) had already been revoked${by ? ` by ${by}` : ''}${after.revoked_at ? ` at ${after.revoked_at}` : ''}; your revoke changed nothing.`,
            ],
          };
        }
        return { title: 'Key revoked', summary: [`${after.name} (${after.id}) is ${after.status}${after.revoked_at ? ` since ${after.revoked_at}` : ''}.`] };
      },
    },
    auditHistoryAction<GatewayKey>((k) => ({ type: 'gateway_key', search: k.id })),
  ],
});
