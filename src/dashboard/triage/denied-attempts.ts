/** Access refused over the last day: requests without permission (403) and without a valid token (401). */
import type { Summary } from '../../contract/index.js';
import { list, num, objects } from './answers.js';
import { LAST_DAY, n, plural, type TriageLine } from './line.js';

/** The action of the entries the appliance writes for requests without a valid token (401). */
const AUTH_REFUSED = 'auth.refused';

/**
 * Denied attempts over the last day, 403 and 401 apart. 403s (refused for lack of permission) are
 * the denied entries but the 401s': `denied` counts every denied entry by actor, split by action.
 * 401s are written as one `auth.refused` entry per source and minute with their `details.count`
 * (a flood must not fill the disk): `authRefused` is the newest page of them, whose counts are
 * added up ("at least" when there are more than a page).
 */
export function deniedLines(denied: Summary | undefined, authRefused: unknown): TriageLine[] {
  const groups = objects<Summary['groups'][number]>(denied?.groups);
  const refusedIn = (g: Summary['groups'][number]) =>
    num(objects<Summary['groups'][number]>(g.sub).find((s) => s.key === AUTH_REFUSED)?.count);
  const forbidden = Math.max(0, num(denied?.total) - groups.reduce((t, g) => t + refusedIn(g), 0));
  const top = groups
    .filter((g) => g.key !== null && num(g.count) - refusedIn(g) > 0)
    .map((g) => ({ key: g.key!, count: num(g.count) - refusedIn(g) }))
    .sort((a, b) => b.count - a.count)[0];
  const unauthenticated = tokenRefusals(authRefused);
  if (forbidden <= 0 && unauthenticated.requests <= 0) return [];
  const parts = [
    forbidden > 0
      ? `${plural(forbidden, 'request')} refused for lack of permission (403)` +
        `${top ? `; top actor ${top.key} (${n(top.count)})` : ''}`
      : null,
    unauthenticated.requests > 0
      ? `${unauthenticated.more ? 'at least ' : ''}${plural(unauthenticated.requests, 'request')} without a valid ` +
        `token (401) from ${plural(unauthenticated.sources, 'source')}`
      : null,
  ].filter(Boolean);
  return [
    {
      key: 'denied',
      severity: 'warn',
      what: 'Denied attempts',
      reason: parts.join(' · '),
      count: forbidden + unauthenticated.requests,
      window: LAST_DAY,
      link: { screen: 'audit', extra: { range: '24h', filters: { outcome: 'denied' } } },
    },
  ];
}

/**
 * The 401s of a page of `auth.refused` entries: the requests they count, from how many sources (an
 * entry without a source stands for the sources past the appliance's cap, `details.sources`), and
 * whether the page has more.
 */
function tokenRefusals(answer: unknown): { requests: number; sources: number; more: boolean } {
  const entries = list<{ action?: unknown; source_ip?: unknown; details?: Record<string, unknown> | null }>(answer);
  const ips = new Set<string>();
  let requests = 0;
  let pooled = 0;
  for (const e of entries) {
    if (e.action !== AUTH_REFUSED) continue;
    requests += Math.max(1, num(e.details?.count));
    if (typeof e.source_ip === 'string') ips.add(e.source_ip);
    // the entry for the sources past the appliance's cap says how many they were
    else pooled += Math.max(1, num(e.details?.sources));
  }
  const more = (answer as { has_more?: unknown } | null)?.has_more === true;
  return { requests, sources: ips.size + pooled, more };
}
