import React, { useState } from 'react';
import { Text, Transform, useInput } from 'ink';
import { Frame } from './Frame.js';
import { colour } from '../../kit/theme.js';
import { sanitize } from '../../../text/sanitize.js';
import { keepOut } from '../../terminal/ink-frame/keep-out.js';

export interface SecretProps {
  title: string;
  secret: string;
  lines: string[];
  width: number;
  isActive: boolean;
  /** writes to the terminal clipboard (OSC 52); called only on the explicit copy key */
  copy(text: string): void;
  onDone(): void;
}

/**
 * Shows a secret once. `c` copies it with OSC 52 (works over SSH); Enter or Esc closes, and
 * with the dialog gone no component, store or state holds the secret any more.
 */
export function SecretDialog(p: SecretProps) {
  const [copied, setCopied] = useState(false);
  useInput(
    (input, key) => {
      if (key.escape || key.return) return p.onDone();
      if (input === 'y') {
        p.copy(p.secret);
        setCopied(true);
      }
    },
    { isActive: p.isActive },
  );
  return (
    <Frame title={p.title} tone="warn" width={p.width} footer="y copy to clipboard (OSC 52) · Enter or Esc close">
      {p.lines.map((l, i) => (
        <Text key={i} wrap="wrap">
          {sanitize(l, 500)}
        </Text>
      ))}
      <Text> </Text>
      <RevealedAtOutput secret={sanitize(p.secret, 2000)} />
      <Text> </Text>
      <Text color={colour('warn')} wrap="wrap">
        ▲ This secret will not be shown again. Store it now; a lost secret means rotating the key (R) for a new one.
      </Text>
      {copied ? <Text color={colour('ok')}>● copied to the clipboard (OSC 52)</Text> : null}
    </Frame>
  );
}

const MASK = '•';

/**
 * Ink keeps every text it lays out in module-level caches (measure-text, wrap-text) for the
 * life of the process. The secret must not become such a text: the layout sees a mask of the
 * same length, and the secret replaces it only in the finished line, which the frame builder is
 * told not to keep (keepOut).
 */
function RevealedAtOutput({ secret }: { secret: string }) {
  const chars = [...secret].map((c) => (c === MASK ? '?' : c));
  let next = 0;
  const reveal = (line: string, index: number) => {
    if (index === 0) next = 0;
    return line.replace(/\u2022/g, () => chars[next++] ?? MASK);
  };
  return (
    <Transform transform={keepOut(reveal)}>
      <Text bold wrap="wrap">
        {MASK.repeat(chars.length)}
      </Text>
    </Transform>
  );
}
