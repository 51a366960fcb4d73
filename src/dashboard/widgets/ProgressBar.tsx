import React from 'react';
import { Text } from 'ink';
import { bar } from '../kit/charts.js';

/** `[█████▌    ]  42%`; with no fraction known, just the label (an indeterminate state). */
export function ProgressBar({ fraction, width, label }: { fraction: number | null; width: number; label?: string }) {
  if (fraction === null || !Number.isFinite(fraction)) return <Text wrap="truncate">{label ?? 'working…'}</Text>;
  const f = Math.max(0, Math.min(1, fraction));
  const inner = Math.max(4, width - 8 - (label ? label.length + 1 : 0));
  const b = bar(f, 1, inner);
  return (
    <Text wrap="truncate">
      [{b}
      {' '.repeat(Math.max(0, inner - [...b].length))}] {String(Math.round(f * 100)).padStart(3)}%
      {label ? ` ${label}` : ''}
    </Text>
  );
}
