import React, { memo } from 'react';
import { Box, Text } from 'ink';
import type { ConnectionInfo } from '../state/resources.js';
import { colour } from '../kit/theme.js';
import { sanitize } from '../../text/sanitize.js';
import { intervalText } from '../kit/format.js';
import { truncate, widthOf } from '../kit/text.js';

interface Freshness {
  fetchedAt: number | null;
  /** the last attempt failed */
  failed: boolean;
  loading: boolean;
}

export interface HeaderProps {
  url: string;
  subject: string | null;
  role: string | null;
  /** why the session is read-only, or null */
  readOnly: string | null;
  forcedReadOnly: boolean;
  /** plain http to a host other than loopback (--insecure-http) */
  insecure?: boolean;
  connection: ConnectionInfo;
  /** the stored sign-in expired and was not renewed: nothing is polled until it is */
  signedOut?: boolean;
  /** the appliance answers but refused the credential (401): it is reached, not connected as anyone */
  refused?: boolean;
  freshness: Freshness;
  refreshMs: number;
  /** the operator paused polling (the pause key) */
  paused: boolean;
  screens: string[];
  current: string;
  width: number;
  now: number;
}

/** Narrower than this, the header is compact: the interval is left out (`?` and the config say it). */
const COMPACT_WIDTH = 80;

/**
 * Refresh intervals up to this say "updated just now" for data the last poll confirmed on time,
 * rather than its age in seconds: that age would change every second, and with it the whole frame
 * (docs/performance.md). Longer intervals count the seconds, which say when the next poll is due.
 */
const JUST_NOW_MAX_REFRESH_MS = 5000;

/**
 * "every 2 s · updated just now" while the data was confirmed within the last refresh interval
 * (and a second for the answer to come back), else "updated 4 s ago"; marked late after two
 * refresh intervals, STALE when the last poll failed (with its age in seconds); while the operator
 * pauses polling, PAUSED instead of the interval, and never late. On a compact header (below 80
 * columns) without "every 2 s", which leaves the screens' names the room.
 */
function freshnessText(
  f: Freshness,
  refreshMs: number,
  paused: boolean,
  now: number,
  width: number,
): { text: string; tone?: 'warn' | 'bad' } {
  const polling = paused ? '▮▮ PAUSED · ' : width < COMPACT_WIDTH ? '' : `every ${intervalText(refreshMs)} · `;
  const tone = paused ? ('warn' as const) : undefined;
  if (f.fetchedAt === null)
    return f.failed ? { text: `${polling}✕ NO DATA`, tone: 'bad' } : { text: `${polling}loading…`, tone };
  const s = Math.max(0, Math.round((now - f.fetchedAt) / 1000));
  const onTime = !f.failed && refreshMs <= JUST_NOW_MAX_REFRESH_MS && now - f.fetchedAt < refreshMs + 1000;
  const age = onTime ? 'updated just now' : `updated ${s} s ago`;
  if (f.failed) return { text: `${polling}✕ STALE · ${age}`, tone: 'bad' };
  if (!paused && now - f.fetchedAt > 2 * refreshMs) return { text: `${polling}▲ ${age} (late)`, tone: 'warn' };
  return { text: `${polling}${age}`, tone };
}

/**
 * The connection as it is: a refused token is not "connected" (the appliance answers every request
 * with 401), and a lost connection says so before the refusal it can no longer confirm.
 */
function connectionText(
  c: ConnectionInfo,
  now: number,
  refused = false,
): { text: string; tone?: 'ok' | 'warn' | 'bad' } {
  if (refused && c.state !== 'down') return { text: '✕ TOKEN REFUSED', tone: 'bad' };
  if (c.state === 'ok') return { text: '● connected', tone: 'ok' };
  if (c.state === 'connecting') return { text: '◌ connecting…', tone: 'warn' };
  const wait = c.retryAt ? Math.max(0, Math.ceil((c.retryAt - now) / 1000)) : 0;
  return { text: `✕ DISCONNECTED · retry in ${wait} s`, tone: 'bad' };
}

/** Screen names with the current one bracketed, trimmed around it to fit. */
function tabsText(screens: string[], current: string, width: number): string {
  const label = (n: string) => (n === current ? `[${n}]` : ` ${n} `);
  let lo = 0;
  let hi = screens.length;
  const text = () =>
    `${lo > 0 ? '… ' : ''}${screens.slice(lo, hi).map(label).join(' ')}${hi < screens.length ? ' …' : ''}`;
  const at = Math.max(0, screens.indexOf(current));
  while (widthOf(text()) > width && hi - lo > 1) {
    if (at - lo > hi - 1 - at) lo++;
    else hi--;
  }
  return truncate(text(), width);
}

const BRAND = 'appliance-admin  ';

/**
 * The first line's "where" and "who", shortened until they fit: the appliance's host:port stays
 * readable. In order: the program name, the subject (to 12), the URL's scheme, its path, the
 * subject (to 6, then only the role); only then is the address itself cut.
 */
export function whereAndWho(
  p: Pick<HeaderProps, 'url' | 'subject' | 'role' | 'readOnly' | 'forcedReadOnly' | 'insecure' | 'width'>,
  connText: string,
) {
  const url = sanitize(p.url, 200);
  const scheme = /^[a-z]+:\/\//i.exec(url)?.[0] ?? '';
  const hostPort = url.slice(scheme.length).split('/')[0];
  const path = url.slice(scheme.length + hostPort.length);
  const ro = p.readOnly ? (p.forcedReadOnly ? 'READ-ONLY (--read-only)' : 'READ-ONLY') : '';
  const whoText = (subjectWidth: number) =>
    p.subject && subjectWidth > 0
      ? `${truncate(sanitize(p.subject, 60), subjectWidth)} (${sanitize(p.role ?? 'role unknown', 30)})`
      : p.role
        ? `(${sanitize(p.role, 30)})`
        : p.subject
          ? ''
          : 'identity unknown';
  // right of the address: the badge, then who, read-only, a separator and the connection
  const rightWidth = (who: string) =>
    (p.insecure ? 1 + widthOf('INSECURE HTTP') : 0) +
    2 +
    widthOf(who) +
    (ro ? 1 + widthOf(ro) : 0) +
    5 +
    widthOf(connText);
  const steps: [brand: string, url: string, subjectWidth: number][] = [
    [BRAND, url, 24],
    ['', url, 24],
    ['', url, 12],
    ['', `${hostPort}${path}`, 12],
    ['', path ? `${hostPort}/…` : hostPort, 12],
    ['', hostPort, 6],
    ['', hostPort, 0],
  ];
  for (const [brand, where, subjectWidth] of steps) {
    const who = whoText(subjectWidth);
    if (widthOf(brand) + widthOf(where) + rightWidth(who) <= p.width) return { where: `${brand}${where}`, who, ro };
  }
  const who = whoText(0);
  return { where: truncate(hostPort, Math.max(8, p.width - rightWidth(who))), who, ro };
}

/**
 * Two lines, always visible: who and where, then the screens and how fresh the data is. The shell
 * renders on every key; the header's words change at most once a second, so it is drawn again
 * only when they would (docs/performance.md).
 */
export const Header = memo(HeaderView, sameWords);

/**
 * What the time changes in the header: its freshness and its connection's words (a retry's
 * countdown). The shell's clock draws a frame when these change (useNowWhen).
 */
export function clockWords(
  p: Pick<HeaderProps, 'freshness' | 'refreshMs' | 'paused' | 'width' | 'connection' | 'refused'>,
  now: number,
): string {
  return `${freshnessText(p.freshness, p.refreshMs, p.paused, now, p.width).text}\n${connectionText(p.connection, now, p.refused).text}`;
}

/** Whether two renders of the header would say the same: `now` matters only through its texts. */
function sameWords(a: HeaderProps, b: HeaderProps): boolean {
  for (const k of Object.keys(b) as (keyof HeaderProps)[]) {
    if (k !== 'now' && k !== 'freshness' && k !== 'screens' && a[k] !== b[k]) return false;
  }
  return (
    a.screens.join('\n') === b.screens.join('\n') &&
    freshnessText(a.freshness, a.refreshMs, a.paused, a.now, a.width).text ===
      freshnessText(b.freshness, b.refreshMs, b.paused, b.now, b.width).text &&
    connectionText(a.connection, a.now, a.refused).text === connectionText(b.connection, b.now, b.refused).text
  );
}

function HeaderView(p: HeaderProps) {
  const conn = p.signedOut
    ? { text: '▲ SIGNED OUT', tone: 'warn' as const }
    : connectionText(p.connection, p.now, p.refused);
  const fresh = freshnessText(p.freshness, p.refreshMs, p.paused, p.now, p.width);
  const { where, who, ro } = whereAndWho(p, conn.text);
  const freshWidth = widthOf(fresh.text);
  return (
    <Box flexDirection="column" width={p.width}>
      <Box width={p.width}>
        <Box flexGrow={1} flexShrink={1}>
          <Text bold wrap="truncate">
            {where}
          </Text>
        </Box>
        {p.insecure ? (
          <Box flexShrink={0} marginLeft={1}>
            <Text bold inverse color={colour('bad')}>
              INSECURE HTTP
            </Text>
          </Box>
        ) : null}
        <Box flexShrink={0} marginLeft={2}>
          <Text>
            <Text bold>{who}</Text>
            {ro ? <Text> </Text> : null}
            {ro ? (
              <Text bold inverse color={colour('warn')}>
                {ro}
              </Text>
            ) : null}
            <Text>{'  ·  '}</Text>
            <Text color={colour(conn.tone)}>{conn.text}</Text>
          </Text>
        </Box>
      </Box>
      <Box width={p.width}>
        <Box flexGrow={1}>
          <Text wrap="truncate">{tabsText(p.screens, p.current, Math.max(10, p.width - freshWidth - 2))}</Text>
        </Box>
        <Text color={colour(fresh.tone)} wrap="truncate">
          {fresh.text}
        </Text>
      </Box>
    </Box>
  );
}
