import type { GatewayKey, Quota, Usage } from '../src/contract/index.js';
import { DEFAULT_GRACE_SECONDS } from '../src/contract/key-rotation.js';
import { isDisplayName } from '../src/contract/names.js';
import { defineScreen, type ActionContext, type FormField } from '../src/dashboard/kit/screen-api.js';
import {
  KEY_REVOKED,
  quotaCauseOf,
  quotaFields,
  quotaOf,
  quotaText,
  setQuotaAction,
} from '../src/dashboard/rules/quota.js';
import { ago, shortTime } from '../src/dashboard/kit/format.js';
import {
  EXPIRY_WARNING_DAYS,
  expiresCell,
  expiryText,
  inGrace,
  isExpired,
  countOf,
  listFilterQuery,
  nextUnusedFilter,
  rotationText,
  UNUSED_FILTER_WORDS,
  unusedFilterOf,
} from '../src/dashboard/kit/key-lifecycle.js';
import { EXPIRY_INPUT_HINT, parseExpiryInput } from '../src/text/expiry-input.js';
import { toneOf } from '../src/dashboard/kit/theme.js';
import { timeKey } from '../src/dashboard/kit/sort.js';
import { auditHistoryAction } from '../src/dashboard/kit/audit-history.js';
import { usageWindow } from './usage.js';
import {
  budgetText,
  isNearBudget,
  parseBudgetAmount,
  spendCell,
  spendSortKey,
  spentText,
  warnPercentOf,
} from '../src/dashboard/kit/key-budget.js';
import { thousands } from '../src/text/thousands.js';

/** The quota sorts by its first figure, requests per minute; unlimited (∞) above any limit. */
const quotaKey = (q: Quota | undefined) => (q ? (q.requests_per_minute ?? Infinity) : null);

/**
 * A key with the calls the gateway refused it over the last hour (null until the usage answer is
 * in), and by which cause (the quota form opens on the quota that refused the most).
 */
type KeyRow = GatewayKey & { rejected_last_hour: number | null; rejected_by_last_hour?: Record<string, number> };

/** The keys the appliance listed (the `U` filter's, when it is on), each with its last hour's rejections. */
function withRejections(data: unknown, usage: unknown): KeyRow[] {
  const used = (usage as Usage | undefined)?.data;
  const rejected = new Map((Array.isArray(used) ? used : []).map((u) => [u.key_id, u.rejected]));
  const causes = new Map((Array.isArray(used) ? used : []).map((u) => [u.key_id, u.rejected_by]));
  // a key without traffic is not in the usage answer: it had no rejection
  return listed(data).map((k) => ({
    ...k,
    rejected_last_hour: used ? (rejected.get(k.id) ?? 0) : null,
    ...(causes.get(k.id) ? { rejected_by_last_hour: causes.get(k.id) } : {}),
  }));
}
const listed = (data: unknown): GatewayKey[] => {
  const keys = (data as { data?: unknown } | undefined)?.data;
  return Array.isArray(keys) ? (keys as GatewayKey[]) : [];
};

/**
 * The minute a key's refusals are counted from since its quota last changed, as the appliance
 * counts them (GatewayKey.rejected_since_quota_change): the first whole minute after a change, the
 * minute of creation for a key never changed. Null when the appliance does not say.
 */
function countedSince(k: Pick<GatewayKey, 'quota_changed_at' | 'created_at'>): number | null {
  const at = k.quota_changed_at ? Date.parse(k.quota_changed_at) : NaN;
  if (!Number.isFinite(at)) return null;
  const minute = at === Date.parse(k.created_at) ? Math.floor(at / MINUTE) : Math.ceil(at / MINUTE);
  return minute * MINUTE;
}
const MINUTE = 60_000;

/** "since 14:03: 0 rejected", under the table: what confirms that raising a quota worked. */
function sinceQuotaChange(k: KeyRow, nowMs = Date.now()): string | null {
  const since = countedSince(k);
  if (since === null || typeof k.rejected_since_quota_change !== 'number') return null;
  const at = new Date(since).toISOString();
  const when = nowMs - since < 20 * 3600_000 ? `${at.slice(11, 16)} UTC` : shortTime(at).concat(' UTC');
  const from = k.quota_changed_at === k.created_at ? 'creation' : 'quota change';
  return `since ${when} (${from}): ${thousands(k.rejected_since_quota_change)} rejected`;
}

/** Who revoked the key first, from the audit trail around its revocation time (best effort). */
async function revokedBy(ctx: ActionContext, key: GatewayKey): Promise<string | null> {
  const at = key.revoked_at ? Date.parse(key.revoked_at) : NaN;
  if (!Number.isFinite(at)) return null;
  try {
    const found = await ctx.call('listAudit', {
      query: {
        action: 'gateway.key.revoke',
        outcome: 'success',
        start_time: new Date(at - 5000).toISOString(),
        end_time: new Date(at + 5000).toISOString(),
        limit: 500,
      },
    });
    const first = (found.data ?? []).find((e) => e.target?.id === key.id && e.details?.already_revoked !== true);
    return first ? `${first.actor.subject}${first.actor.role ? ` (${first.actor.role})` : ''}` : null;
  } catch {
    return null;
  }
}

/** The rotate form's graces: none, an hour, a day (the appliance's default), a week. */
const GRACES: [number, string][] = [
  [0, 'not at all: refused at once'],
  [3600, 'for 1 hour'],
  [DEFAULT_GRACE_SECONDS, 'for 24 hours'],
  [7 * 86_400, 'for 7 days'],
];

/** An expiry typed in a form (creation, E): a time from now, a date, or empty for never. */
const expiryField = (initial = ''): FormField => ({
  kind: 'text',
  name: 'expires',
  label: 'Expires',
  initial,
  maxLength: 40,
  hint: EXPIRY_INPUT_HINT,
  validate: (s) => {
    const r = parseExpiryInput(s);
    return r.ok ? null : r.error;
  },
});

/**
 * The keys one page shows: the newest, or with `f` those whose name begins with a text, which the
 * appliance finds by its index among any number of keys (a million: issue 41 §6).
 */
const KEYS_PAGE = 500;
const searchedName = (extra: Record<string, unknown> | undefined): string | null =>
  typeof extra?.name === 'string' && extra.name !== '' ? extra.name : null;
const nameQuery = (extra: Record<string, unknown>) => {
  const name = searchedName(extra);
  return name === null ? {} : { name };
};
/** The `U` filter's keys, which the appliance finds among every key, and how many there are. */
const filterQuery = (extra: Record<string, unknown>) => {
  const filter = unusedFilterOf(extra);
  return filter === null ? {} : { ...listFilterQuery(filter), count: 'true' as const };
};
/** What the list holds, as the summary begins: the whole list, the newest page of more, or a search. */
function shownText(rows: number, view: { data?: unknown; state?: { extra?: Record<string, unknown> } } | undefined) {
  const more = (view?.data as { has_more?: unknown } | undefined)?.has_more === true;
  const name = searchedName(view?.state?.extra);
  const keys = (n: number) => `${thousands(n)} key${n === 1 ? '' : 's'}`;
  if (name !== null)
    return more
      ? `the first ${keys(rows)} by name of those beginning "${name}" (type more of it: f)`
      : `${keys(rows)} whose name begins "${name}" (f: another, empty for all)`;
  return more ? `the newest ${keys(rows)} of more (f finds one by its name)` : keys(rows);
}

/**
 * How many keys the `U` filter found, as the appliance counted them over every key: "12 keys", or
 * "the first 500 of more than 10,000 keys" when they fill more than the page.
 */
function filteredText(view: { data?: unknown; state?: { extra?: Record<string, unknown> } } | undefined): string {
  const listedKeys = listed(view?.data).length;
  const total = countOf(view?.data, listedKeys);
  const keys = `${total.text} key${total.n === 1 && total.text === '1' ? '' : 's'}`;
  const name = searchedName(view?.state?.extra);
  const named = name === null ? '' : ` whose name begins "${name}"`;
  const more = (view?.data as { has_more?: unknown } | undefined)?.has_more === true;
  return more ? `the first ${thousands(listedKeys)} of ${keys}${named}` : `${keys}${named}`;
}

export const keysScreen = defineScreen<KeyRow>({
  name: 'keys',
  title: 'Gateway keys',
  resources: (state) => [
    {
      id: 'keys',
      route: 'listKeys',
      query: { limit: KEYS_PAGE, ...nameQuery(state.extra), ...filterQuery(state.extra) },
    },
    {
      id: 'rejections',
      route: 'usage',
      query: { bucket: 'hour' },
      rolling: { as: 'hour', query: (now) => usageWindow('hour', now) },
    },
  ],
  list: {
    rows: (data, related) => withRejections(data, related.rejections),
    // What the keys screen is for, next to the header's count of rejections: which key was refused
    // and under what quota. Those two columns are kept; on a short line the day of creation, then
    // the last use, the prefix and the status are left out first (the line under the table says
    // the cursor row whole, Enter shows the exact times).
    columns: [
      { header: 'Name', value: (k) => k.name, grow: true, minWidth: 15, maxWidth: 32 },
      {
        header: 'Status',
        // an active key past its expiry is refused like a revoked one: said so, not "active"
        value: (k) => (k.status === 'active' && isExpired(k) ? 'expired' : k.status),
        tone: (k) => (k.status === 'active' && isExpired(k) ? 'bad' : toneOf(k.status)),
        minWidth: 7,
      },
      { header: 'Prefix', value: (k) => k.prefix, minWidth: 16, maxWidth: 16 },
      {
        header: 'Quota rpm/tpm/tpd',
        value: (k) => quotaText(k.quota),
        sort: (k) => quotaKey(k.quota),
        keep: true,
        minWidth: 17,
        maxWidth: 24,
      },
      {
        // today against the day budget (else the month's): "4.10/5 EUR 82%"
        header: 'Spend',
        value: (k) => spendCell(k),
        sort: (k) => spendSortKey(k),
        tone: (k) => (k.status === 'active' && isNearBudget(k) ? 'warn' : undefined),
        // "4.10/5 EUR 82%" whole even when narrowed: the share at its end is what the column is read for
        minWidth: 14,
        maxWidth: 20,
        // not kept: on a short line the names stay whole, the cursor line says the spend and N lists the keys near a budget
        givesWay: true,
      },
      {
        header: 'Last used',
        value: (k) => ago(k.last_used_at).replace(/ ago$/, ''),
        sort: (k) => timeKey(k.last_used_at),
        minWidth: 7,
      },
      {
        header: 'Expires',
        value: (k) => expiresCell(k),
        sort: (k) => timeKey(k.expires_at),
        // within the overview's warning: the same keys it names
        tone: (k) =>
          k.expires_at && Date.parse(k.expires_at) - Date.now() <= EXPIRY_WARNING_DAYS * 86_400_000
            ? 'warn'
            : undefined,
        minWidth: 7,
        maxWidth: 10,
        givesWay: true,
      },
      {
        header: 'Created',
        value: (k) => shortTime(k.created_at).slice(0, 10),
        sort: (k) => timeKey(k.created_at),
        width: 10,
      },
      {
        header: 'Rej 1h',
        value: (k) => k.rejected_last_hour ?? '–',
        sort: (k) => k.rejected_last_hour,
        align: 'right',
        tone: (k) => (k.rejected_last_hour ? 'warn' : undefined),
        width: 6,
        keep: true,
      },
    ],
    rowKey: (k) => k.id,
    cursorLine: (k) => {
      const said = [
        quotaText(k.quota),
        budgetText(k),
        spentText(k),
        rotationText(k),
        expiryText(k),
        sinceQuotaChange(k),
      ].filter(Boolean);
      return `${k.name}: ${said.join(' · ')}`;
    },
    // the U filter or a search by name can empty the list: then it says which, not that there are no keys
    empty: (state) => {
      const name = searchedName(state.extra);
      const unused = unusedFilterOf(state.extra);
      // both: the name may well exist, only not among the filter's keys
      if (name !== null && unused)
        return `None of the ${UNUSED_FILTER_WORDS[unused]} has a name beginning "${name}". U: next filter; f: another name.`;
      if (name !== null) return `No key's name begins "${name}". f searches another name; empty lists every key.`;
      return unused
        ? `No key here: ${UNUSED_FILTER_WORDS[unused]}. U shows the next filter, then every key again.`
        : 'No gateway keys yet. Press n to create one.';
    },
    summary: (rows, view) => {
      const rejected = rows.some((k) => k.rejected_last_hour !== null)
        ? rows.reduce((n, k) => n + (k.rejected_last_hour ?? 0), 0)
        : null;
      const unused = unusedFilterOf(view?.state?.extra);
      const graces = rows.filter((k) => k.status === 'active' && inGrace(k)).length;
      const shown = shownText(listed(view?.data).length, view);
      const counted = unused
        ? `${filteredText(view)}: ${UNUSED_FILTER_WORDS[unused]} (U: ${nextUnusedFilter(unused) ? UNUSED_FILTER_WORDS[nextUnusedFilter(unused)!] : 'all keys'})`
        : `${shown} · ${rows.filter((k) => k.status === 'active').length} active`;
      return `${counted}${graces ? ` · ${graces} in a rotation grace` : ''}${rejected === null ? '' : ` · ${thousands(rejected)} rejected in the last hour`}`;
    },
  },
  actions: [
    {
      intent: 'new',
      label: 'new key',
      hintShort: 'new',
      mutates: true,
      capability: 'gateway.key.create',
      async run(ctx) {
        const v = await ctx.form({
          title: 'Create a gateway key',
          fields: [
            {
              kind: 'text',
              name: 'name',
              label: 'Name',
              required: true,
              maxLength: 64,
              hint: 'who or what will use the key',
              validate: (s) => (isDisplayName(s) ? null : 'printable text, 1 to 64 characters'),
            },
            ...quotaFields(),
            expiryField(),
          ],
          submitLabel: 'create',
        });
        if (!v) return;
        const expiry = parseExpiryInput(String(v.expires ?? ''));
        // The secret lives only in this call and the dialog; neither outlives the dialog.
        const created = await ctx.call('createKey', {
          body: {
            name: String(v.name),
            quota: quotaOf(v),
            ...(expiry.ok && expiry.expires_at ? { expires_at: expiry.expires_at } : {}),
          },
        });
        const summary = [
          `Created ${created.name} (${created.id}), prefix ${created.prefix}.`,
          `Quota (requests/min, tokens/min, tokens/day): ${quotaText(created.quota)}`,
          ...(created.expires_at ? [`It ${expiryText(created)}.`] : []),
        ];
        await ctx.revealOnce({
          title: `Secret for ${created.name}`,
          secret: created.secret,
          lines: ['Give this secret to the client that calls the gateway.'],
        });
        ctx.refresh();
        return { title: 'Key created', summary };
      },
    },
    setQuotaAction<KeyRow>(
      (k) => k,
      (k) => quotaCauseOf(k.rejected_by_last_hour),
    ),
    {
      key: 'R',
      label: 'rotate',
      // on a short line: after revoke and quota, before a disabled action's reason; expiry and the unused filter first
      hintPriority: 54,
      mutates: true,
      capability: 'gateway.key.rotate',
      needsRow: true,
      unavailable: (k) =>
        k.status === 'revoked'
          ? KEY_REVOKED
          : isExpired(k)
            ? 'the key has expired: set a later expiry (E) first'
            : null,
      async run(ctx, key) {
        const v = await ctx.form({
          title: `Rotate ${key.name}?`,
          message: [
            `A new secret replaces ${key.prefix}…; it is shown once. Id, name, quota and usage stay.`,
            'The old secret keeps working for the grace chosen here, then the gateway refuses it.',
            ...(inGrace(key)
              ? [`The secret ${key.previous_prefix}… is still in its grace: this rotation ends it now.`]
              : []),
          ],
          fields: [
            {
              kind: 'select',
              name: 'grace',
              label: 'Old secret works',
              initial: String(DEFAULT_GRACE_SECONDS),
              options: GRACES.map(([seconds, label]) => ({ value: String(seconds), label })),
            },
          ],
          submitLabel: 'rotate',
        });
        if (!v) return;
        // The new secret lives only in this call and the dialog; neither outlives the dialog.
        const rotated = await ctx.call('rotateKey', {
          params: { id: key.id },
          body: { grace_seconds: Number(v.grace) },
        });
        const summary = [
          `Rotated ${rotated.name} (${rotated.id}): new prefix ${rotated.prefix}, old ${rotated.previous_prefix ?? key.prefix}.`,
          inGrace(rotated)
            ? `The old secret works until ${shortTime(rotated.previous_valid_until)} UTC; then the gateway refuses it.`
            : 'The gateway refuses the old secret from now on.',
        ];
        await ctx.revealOnce({
          title: `New secret for ${rotated.name}`,
          secret: rotated.secret,
          lines: ['Give this secret to the clients that call the gateway with this key.'],
        });
        ctx.refresh();
        return { title: 'Key rotated', summary };
      },
    },
    {
      key: 'E',
      label: 'set expiry',
      hintPriority: 38,
      mutates: true,
      capability: 'gateway.key.expiry',
      needsRow: true,
      unavailable: (k) => (k.status === 'revoked' ? KEY_REVOKED : null),
      async run(ctx, key) {
        const v = await ctx.form({
          title: `Expiry of ${key.name}`,
          message: [
            `Now: ${expiryText(key) ?? 'it does not expire'}.`,
            'From the time set here the gateway refuses the key (401); empty: it does not expire.',
          ],
          fields: [expiryField(key.expires_at ?? '')],
          submitLabel: 'save',
        });
        if (!v) return;
        const expiry = parseExpiryInput(String(v.expires ?? ''));
        const after = await ctx.call('setKeyExpiry', {
          params: { id: key.id },
          body: { expires_at: expiry.ok ? expiry.expires_at : null },
        });
        return {
          title: after.expires_at ? 'Expiry set' : 'Expiry cleared',
          summary: [`${after.name} ${expiryText(after) ?? 'no longer expires'}.`],
        };
      },
    },
    {
      intent: 'remove',
      label: 'revoke',
      mutates: true,
      capability: 'gateway.key.revoke',
      needsRow: true,
      unavailable: (k) => (k.status === 'revoked' ? KEY_REVOKED : null),
      async run(ctx, key) {
        const ok = await ctx.typeToConfirm({
          title: `Revoke ${key.name}?`,
          message: [
            'Revoking is permanent: every client using this key is refused from then on.',
            `Key ${key.id}, prefix ${key.prefix}.`,
          ],
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
        return {
          title: 'Key revoked',
          summary: [
            `${after.name} (${after.id}) is ${after.status}${after.revoked_at ? ` since ${after.revoked_at}` : ''}.`,
          ],
        };
      },
    },
    {
      key: 'B',
      label: 'set budget',
      // on a short line it gives way after the unused filter and before expiry, so that s sort stays
      hintPriority: 37,
      mutates: true,
      capability: 'gateway.key.budget',
      needsRow: true,
      unavailable: (k) => (k.status === 'revoked' ? KEY_REVOKED : null),
      async run(ctx, key) {
        // An appliance without pricing is said when B is pressed, not as a reason on the hint line:
        // that would stand there on every row of such an appliance.
        if (key.spend === null)
          return {
            title: 'No budget without pricing',
            tone: 'warn',
            summary: [
              "The appliance has no pricing: a budget is counted in its currency, which the config file's `pricing` names.",
              'Nothing was sent.',
            ],
          };
        const currency = key.spend?.currency ?? '';
        const amount = (name: string, label: string, initial: number | null): FormField => ({
          kind: 'text',
          name,
          label: `${label} (${currency})`,
          initial: initial === null ? '' : String(initial),
          maxLength: 20,
          hint: 'an amount such as 5 or 12.50; empty: no budget',
          validate: (t) => {
            const r = parseBudgetAmount(t);
            return r.ok ? null : r.error;
          },
        });
        const v = await ctx.form({
          title: `Budget of ${key.name}`,
          message: [
            `Now: ${budgetText(key) ?? 'no budget'}; ${spentText(key) ?? ''}.`,
            'A call that would pass a budget is refused (429) until the UTC day or month ends; every key, every role.',
          ],
          fields: [
            amount('per_day', 'Per UTC day', key.budget?.per_day ?? null),
            amount('per_month', 'Per month', key.budget?.per_month ?? null),
            {
              kind: 'number',
              name: 'warn_percent',
              label: 'Warn at (%)',
              initial: warnPercentOf(key),
              min: 1,
              max: 100,
              required: true,
              hint: 'the overview warns when a budget is this much used',
            },
          ],
          submitLabel: 'save',
        });
        if (!v) return;
        const amountOf = (name: string) => {
          const r = parseBudgetAmount(String(v[name] ?? ''));
          return r.ok ? r.amount : null;
        };
        const after = await ctx.call('setKeyBudget', {
          params: { id: key.id },
          body: {
            per_day: amountOf('per_day'),
            per_month: amountOf('per_month'),
            warn_percent: Number(v.warn_percent),
          },
        });
        const text = budgetText(after);
        return {
          title: text ? 'Budget set' : 'Budget cleared',
          summary: [`${after.name}: ${text ?? 'no budget'}.`, ...(spentText(after) ? [`It ${spentText(after)}.`] : [])],
        };
      },
    },
    {
      key: 'U',
      label: 'unused keys',
      // a filter: on a short line it gives way first, before the shell's sort and filter
      hintPriority: 36,
      mutates: false,
      async run(ctx) {
        ctx.setExtra({ unused: nextUnusedFilter(unusedFilterOf(ctx.state.extra)) }, { top: true });
      },
    },
    {
      key: 'f',
      label: 'find by name',
      // on a short line it gives way first: the summary names f whenever the appliance has more keys than the page
      hintPriority: 35,
      mutates: false,
      async run(ctx) {
        const v = await ctx.form({
          title: 'Find keys by name',
          message: [
            'The appliance lists the keys whose name begins with this text (letter case aside), in name order.',
            'Empty: every key, newest first.',
          ],
          fields: [
            {
              kind: 'text',
              name: 'name',
              label: 'Name begins',
              initial: searchedName(ctx.state.extra) ?? '',
              maxLength: 64,
            },
          ],
          submitLabel: 'find',
        });
        if (!v) return;
        const name = String(v.name ?? '').trim();
        ctx.setExtra({ name: name === '' ? undefined : name }, { top: true });
      },
    },
    auditHistoryAction<KeyRow>((k) => ({ type: 'gateway_key', search: k.id })),
  ],
});
