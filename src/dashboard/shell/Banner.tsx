import React from 'react';
import { Text } from 'ink';
import { TransportError } from '../../client/errors.js';
import type { ConnectionInfo } from '../state/resources.js';
import { errorLines } from '../kit/error-lines.js';
import { colour } from '../kit/theme.js';
import { truncate, wrapText } from '../kit/text.js';
import { sanitize } from '../../text/sanitize.js';
import type { ScreenData } from './screen-data.js';
import type { SessionState } from '../kit/session-state.js';

interface BannerLine {
  text: string;
  tone: 'bad' | 'warn';
}

interface SignedOut {
  title: string;
  message: string;
}

/**
 * Problems with the visible screen's data, in at most three lines. A list made from all its
 * resources (the overview) says in its own rows which could not be read: not repeated here.
 */
function bannerLines(
  data: ScreenData,
  authError: string | null,
  connection: ConnectionInfo,
  signedOut: SignedOut | null,
  rowsSayErrors: boolean,
  saysError?: (resourceId: string, error: unknown) => boolean,
): BannerLine[] {
  const out: BannerLine[] = [];
  const connectionError = connection.error;
  if (signedOut) {
    // Not an error of the dashboard: the sign-in ran its course. Its words, and the way back.
    const last = data.primary.data === undefined ? '' : ' The last data stays on screen.';
    out.push({ text: `▲ SIGNED OUT (r signs in again): ${signedOut.message}${last}`, tone: 'warn' });
  } else if (connection.state === 'down' && connection.identityProvider) {
    out.push({
      text: `✕ cannot renew the sign-in for now: ${connectionError ?? 'no answer'}; a temporary problem, the sign-in is kept${data.primary.data === undefined ? '' : '; showing the last data'} (r retries now)`,
      tone: 'bad',
    });
  } else if (connection.state === 'down') {
    const text =
      data.primary.data === undefined
        ? `✕ cannot connect: ${connectionError ?? 'no answer'} (r retries now)`
        : `✕ connection lost: ${connectionError ?? 'no answer'}; showing the last data (r retries now)`;
    out.push({ text, tone: 'bad' });
  }
  const connectionDown = connection.state === 'down';
  if (authError) out.push({ text: `✕ ERROR ${authError}`, tone: 'bad' });
  for (const [id, e] of Object.entries(data.resources)) {
    if (saysError?.(id, e.error)) continue;
    if (e.status === 'error' && e.error && !rowsSayErrors && !(connectionDown && e.error instanceof TransportError)) {
      const l = errorLines(e.error);
      // the first reason the appliance gave (a refused filter: which parameter, and why)
      const why = l.details[0] ? ` (${l.details[0]})` : '';
      out.push({
        text: `✕ ERROR loading ${id}${e.stale ? ' (showing the last data)' : ''}: ${l.headline}${why}`,
        tone: 'bad',
      });
      if (l.reference) out.push({ text: `  ${l.reference}`, tone: 'bad' });
    } else if (e.issues.length) {
      const first = e.issues[0];
      out.push({
        text: `▲ the answer for ${id} does not fit the contract (${e.issues.length} issue${e.issues.length > 1 ? 's' : ''}): ${first.path}: ${first.message}`,
        tone: 'warn',
      });
    }
  }
  return out.slice(0, 3);
}

/** Plain words run long: each problem gets up to two lines, the banner four in all. */
function wrapBanner(lines: BannerLine[], width: number): BannerLine[] {
  return lines
    .flatMap((b) => {
      const parts = wrapText(sanitize(b.text, 400), Math.max(20, width - 2));
      const shown = parts.slice(0, 2);
      if (parts.length > 2) shown[1] = truncate(parts.slice(1).join(' '), Math.max(20, width - 2));
      return shown.map((text, i) => ({ text: i === 0 ? text : `  ${text}`, tone: b.tone }));
    })
    .slice(0, 4);
}

/** The banner's lines for this width (the shell sizes the body around them). */
export function bannerFor(
  data: ScreenData,
  session: Pick<SessionState, 'authError' | 'signedOut'>,
  connection: ConnectionInfo,
  rowsSayErrors: boolean,
  width: number,
  saysError?: (resourceId: string, error: unknown) => boolean,
): BannerLine[] {
  return wrapBanner(
    bannerLines(data, session.authError, connection, session.signedOut, rowsSayErrors, saysError),
    width,
  );
}

/** Below the header: what went wrong with the visible screen's data, in the tone of each problem. */
export function Banner({ lines }: { lines: BannerLine[] }) {
  return (
    <>
      {lines.map((b, i) => (
        <Text key={i} color={colour(b.tone)} wrap="truncate">
          {b.text}
        </Text>
      ))}
    </>
  );
}
