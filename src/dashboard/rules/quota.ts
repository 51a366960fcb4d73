import type { GatewayKey, Quota } from '../../contract/index.js';
import type { ActionContext, FormField, ScreenAction } from '../kit/screen-api.js';
import { limitText } from '../kit/format.js';
import { isQuotaName, linkedQuota, type QuotaName } from '../kit/quota-link.js';
import { confirmOverwrite, mergeValues } from './merge.js';

/** "60 / 40k / ∞": requests per minute, tokens per minute, tokens per day (∞ = unlimited). */
export const quotaText = (q: Quota | undefined) =>
  q ? `${short(q.requests_per_minute)} / ${short(q.tokens_per_minute)} / ${short(q.tokens_per_day)}` : '–';
function short(v: number | null | undefined): string {
  if (v === null || v === undefined) return '∞';
  if (v >= 1_000_000) return `${+(v / 1_000_000).toFixed(1)}M`;
  if (v >= 10_000) return `${+(v / 1000).toFixed(1)}k`;
  return String(v);
}

export const quotaFields = (q?: Partial<Quota>): FormField[] => [
  {
    kind: 'limit',
    name: 'requests_per_minute',
    label: 'Requests / minute',
    initial: q?.requests_per_minute ?? null,
    hint: 'whole number, or empty for unlimited',
  },
  {
    kind: 'limit',
    name: 'tokens_per_minute',
    label: 'Tokens / minute',
    initial: q?.tokens_per_minute ?? null,
    hint: 'whole number, or empty for unlimited',
  },
  {
    kind: 'limit',
    name: 'tokens_per_day',
    label: 'Tokens / day',
    initial: q?.tokens_per_day ?? null,
    hint: 'whole number, or empty for unlimited',
  },
];
export const quotaOf = (v: Record<string, unknown>): Quota => ({
  requests_per_minute: (v.requests_per_minute as number | null) ?? null,
  tokens_per_minute: (v.tokens_per_minute as number | null) ?? null,
  tokens_per_day: (v.tokens_per_day as number | null) ?? null,
});
const QUOTA_FIELDS = [
  { name: 'requests_per_minute', label: 'Requests / minute' },
  { name: 'tokens_per_minute', label: 'Tokens / minute' },
  { name: 'tokens_per_day', label: 'Tokens / day' },
] as const;
/**
 * The quota a key's rejections point at: of the causes that are a quota (not a revoked key or an
 * unknown workload), the one that refused the most calls; undefined when none did.
 */
export function quotaCauseOf(rejectedBy: Record<string, unknown> | null | undefined): QuotaName | undefined {
  let best: [QuotaName, number] | undefined;
  for (const [cause, n] of Object.entries(rejectedBy ?? {}))
    if (isQuotaName(cause) && typeof n === 'number' && n > 0 && (!best || n > best[1])) best = [cause, n];
  return best?.[0];
}

const quotaWords = (q: Quota) =>
  `${limitText(q.requests_per_minute)} requests/min, ${limitText(q.tokens_per_minute)} tokens/min, ${limitText(q.tokens_per_day)} tokens/day`;

/** The key as the appliance has it now, or undefined when it is gone: the list filtered by its id, one row. */
async function currentKey(ctx: ActionContext, id: string): Promise<GatewayKey | undefined> {
  const page = await ctx.call('listKeys', { query: { id, limit: 1 } });
  return (page.data ?? []).find((k) => k.id === id);
}

/**
 * Where to watch the change work: the appliance counts the key's refusals again from the first
 * whole minute after the change (GatewayKey.rejected_since_quota_change), which the keys screen's
 * cursor line shows.
 */
function countedAgain(k: GatewayKey): string[] {
  const at = k.quota_changed_at ? Date.parse(k.quota_changed_at) : NaN;
  if (!Number.isFinite(at)) return [];
  const from = new Date(Math.ceil(at / 60_000) * 60_000).toISOString().slice(11, 16);
  return [`Its refusals are counted again from ${from} UTC: the keys screen's cursor line says how many since.`];
}

/** Why no action applies to a revoked key: every action says it in the same words, so the hint says it once. */
export const KEY_REVOKED = 'the key is revoked';

const revoked = (k: GatewayKey | undefined) => (k?.status === 'revoked' ? KEY_REVOKED : null);

/**
 * `u` set quota, wherever a key is at hand (keys; a usage row, beside its rejections): `keyOf`
 * gives the row's key as last listed; the form starts from the appliance's latest. It opens on the
 * quota the operator came for: the one the opening overview line named, else the one `causeOf`
 * says refused the row's calls (tokens/day after tokens/day rejections), else requests/minute.
 */
export function setQuotaAction<Row>(
  keyOf: (row: Row) => GatewayKey | undefined,
  causeOf?: (row: Row) => QuotaName | undefined,
): ScreenAction<Row> {
  return {
    key: 'u',
    label: 'set quota',
    hintShort: 'quota',
    // raising a refused key's quota is what its rejections are read for
    hintPriority: 62,
    mutates: true,
    capability: 'gateway.key.quota',
    needsRow: true,
    unavailable: (row) => (keyOf(row) ? revoked(keyOf(row)) : "the key is not on the appliance's key list"),
    async run(ctx, row) {
      const key = keyOf(row)!;
      // the form starts from what the appliance has now, not from the last poll
      const fresh = await currentKey(ctx, key.id);
      if (fresh?.status === 'revoked')
        return {
          title: 'Nothing to change',
          tone: 'warn',
          summary: [`${key.name} was revoked meanwhile; its quota is frozen.`],
        };
      const base = fresh?.quota ?? key.quota;
      const v = await ctx.form({
        title: `Quota for ${key.name}`,
        message: `Now: ${quotaWords(base)}.`,
        fields: quotaFields(base),
        focus: linkedQuota(ctx.state.extra, key.id) ?? causeOf?.(row),
        submitLabel: 'save',
      });
      if (!v) return;
      const mine = quotaOf(v);
      // only the values changed here are written onto the latest quota
      const now = await currentKey(ctx, key.id);
      if (now?.status === 'revoked')
        return {
          title: 'Nothing saved',
          tone: 'warn',
          summary: [`${key.name} was revoked while the form was open; its quota is frozen. Nothing was sent.`],
        };
      const theirs = now?.quota ?? base;
      const m = mergeValues(QUOTA_FIELDS, base, mine, theirs);
      if (m.changed.length === 0)
        return { title: 'Nothing saved', summary: [`You changed no value of ${key.name}'s quota; nothing was sent.`] };
      if (
        m.conflicts.length &&
        !(await confirmOverwrite(ctx, { what: `The quota of ${key.name}`, conflicts: m.conflicts, show: limitText }))
      ) {
        return {
          title: 'Nothing saved',
          tone: 'warn',
          summary: [
            `Nothing was sent: ${key.name} keeps the other change (${quotaWords(theirs)}). Open the form again to start from the latest values.`,
          ],
        };
      }
      if (m.same) return { title: 'Nothing saved', summary: [`${key.name} already has this quota; nothing was sent.`] };
      const updated = await ctx.call('setQuota', { params: { id: key.id }, body: { ...theirs, ...m.merged } as Quota });
      return {
        title: 'Quota saved',
        summary: [`${updated.name}: ${quotaWords(updated.quota)}.`, ...countedAgain(updated)],
      };
    },
  };
}
