import React from 'react';
import type { SignInPhase, SignInPrompt } from '../../kit/dialog-specs.js';
import { Text, useInput } from 'ink';
import { Frame, innerWidth } from './Frame.js';
import { sanitize } from '../../../text/sanitize.js';
import { widthOf, wrapText } from '../../kit/text.js';
import { colour } from '../../kit/theme.js';

export interface SignInProps {
  phase: SignInPhase;
  title: string;
  lines: string[];
  prompt?: SignInPrompt;
  width: number;
  height: number;
  isActive: boolean;
  /** 'start' (Enter on the explanation or a failure) or 'cancel' (Esc) */
  onDone(choice: 'start' | 'cancel'): void;
}

/** Border, title and footer of the Frame, in lines. */
const FRAME_LINES = 6;

const FOOTERS: Record<SignInPhase, string> = {
  explain: 'Enter sign in again · Esc not now (read-only, the last data stays)',
  failed: 'Enter try again with a new code · Esc not now',
  waiting: 'Esc cancel the sign-in',
};

/**
 * The re-sign-in of the dashboard: why it is needed, then the device code (and its QR code
 * when the terminal has room for it) while the identity provider is polled.
 */
export function SignInDialog(p: SignInProps) {
  useInput(
    (_input, key) => {
      if (key.escape) p.onDone('cancel');
      else if (key.return && p.phase !== 'waiting') p.onDone('start');
    },
    { isActive: p.isActive },
  );
  const inner = innerWidth(p.width);
  const wrap = (l: string) => wrapText(sanitize(l, 2000) || ' ', inner);
  const room = Math.max(1, p.height - FRAME_LINES);
  let text: string[];
  let qr: string[] = [];
  if (p.prompt) {
    const page = sanitize(p.prompt.verificationUri, 500);
    const complete = p.prompt.verificationUriComplete ? sanitize(p.prompt.verificationUriComplete, 500) : undefined;
    const code = sanitize(p.prompt.userCode, 40);
    const waiting = `Waiting for the approval… (the code is valid until ${sanitize(p.prompt.until, 20)})`;
    const withQr = [`Scan the code with a phone, or open ${page}`, `and enter the code:  ${code}`, waiting].flatMap(
      wrap,
    );
    const fits =
      p.prompt.qr.length > 0 && p.prompt.qr.length + withQr.length <= room && widthOf(p.prompt.qr[0]) <= inner;
    if (fits) {
      qr = p.prompt.qr;
      text = withQr;
    } else {
      const filled = complete && complete !== page ? [`(or open ${complete}, which has the code filled in)`] : [];
      text = [`To sign in, open ${page}`, `and enter the code:  ${code}`, ...filled, waiting].flatMap(wrap);
    }
  } else {
    text = p.lines.flatMap(wrap);
  }
  const shown = text.slice(0, room - qr.length);
  const tone = p.phase === 'failed' ? 'bad' : p.phase === 'explain' ? 'warn' : 'info';
  return (
    <Frame title={p.title} tone={tone} width={p.width} footer={FOOTERS[p.phase]}>
      {qr.map((l, i) => (
        <Text key={`qr${i}`} wrap="truncate">
          {l}
        </Text>
      ))}
      {shown.map((l, i) => (
        <Text key={i} wrap="truncate" color={i === 0 && p.phase === 'failed' ? colour('bad') : undefined}>
          {l}
        </Text>
      ))}
      {text.length > shown.length ? (
        <Text dimColor>… {text.length - shown.length} more lines (make the window taller)</Text>
      ) : null}
    </Frame>
  );
}
