import type { GatewayKey, Quota } from '../src/contract/index.js';
import { DisplayName } from '../src/contract/common.js';
import { defineScreen, type FormField } from '../src/ui/screen-api.js';
import { ago, limitText, shortTime } from '../src/ui/format.js';
import { toneOf } from '../src/ui/theme.js';

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
        const q = key.quota;
        const v = await ctx.form({
          title: `Quota for ${key.name}`,
          message: `Now: ${limitText(q?.requests_per_minute)} requests/min, ${limitText(q?.tokens_per_minute)} tokens/min, ${limitText(q?.tokens_per_day)} tokens/day.`,
          fields: quotaFields(q),
          submitLabel: 'save',
        });
        if (!v) return;
        const updated = await ctx.call('setQuota', { params: { id: key.id }, body: quotaOf(v) });
        return {
          title: 'Quota saved',
          summary: [
            `${updated.name}: ${limitText(updated.quota.requests_per_minute)} requests/min, ${limitText(updated.quota.tokens_per_minute)} tokens/min, ${limitText(updated.quota.tokens_per_day)} tokens/day.`,
          ],
        };
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
        return { title: 'Key revoked', summary: [`${after.name} (${after.id}) is ${after.status}${after.revoked_at ? ` since ${after.revoked_at}` : ''}.`] };
      },
    },
  ],
});
