import React, { memo } from 'react';
import { Text } from 'ink';
import { truncate, widthOf } from '../kit/text.js';
import { sameDisabled, type Disabled } from '../kit/disabled.js';

export interface HintAction {
  key: string;
  label: string;
  /** why its key does nothing now (src/dashboard/kit/disabled.ts), or null */
  disabled: Disabled | null;
  /** how long it stays on a short line (higher: longer) */
  priority: number;
}

export interface ShellHint {
  key: string;
  label: string;
  priority: number;
}

interface KeyHintsProps {
  actions: HintAction[];
  /** the shell's keys offered on this screen (src/dashboard/shell/keymap.ts shellHints) */
  shell: ShellHint[];
  width: number;
}

/** Why actions are off: it stays on a short line longer than the shell's lesser keys, and is cut before going. */
const REASON_PRIORITY = 55;
/** A reason cut shorter than this says nothing: it goes instead. */
const REASON_MIN_WIDTH = 12;

/**
 * What fits on one line of `width`: the lowest priority goes first (of equals, the rightmost);
 * the reason for disabled actions is cut before it goes. Returns what is kept and the reason's room
 * (with the two spaces after it).
 */
function fitHints(
  actions: HintAction[],
  shell: ShellHint[],
  reason: string,
  width: number,
): { actions: HintAction[]; shell: ShellHint[]; reasonWidth: number } {
  const parts = [
    ...actions.map((a) => ({ w: widthOf(`${a.key} ${a.label}${a.disabled ? ' ✕' : ''}  `), p: a.priority, kind: 'a' })),
    ...(reason ? [{ w: widthOf(reason) + 2, p: REASON_PRIORITY, kind: 'r' }] : []),
    ...shell.map((s) => ({ w: widthOf(`${s.key} ${s.label}`), p: s.priority, kind: 's' })),
  ];
  const kept = new Set(parts.map((_, i) => i));
  let reasonWidth = reason ? widthOf(reason) + 2 : 0;
  const lineWidth = () => {
    let w = 0;
    let shellKept = 0;
    let actionKept = false;
    for (const i of kept) {
      w += parts[i].kind === 'r' ? reasonWidth : parts[i].w;
      if (parts[i].kind === 's') shellKept++;
      if (parts[i].kind === 'a') actionKept = true;
    }
    // two spaces between the shell's keys, and "│ " after the screen's actions
    return w + 2 * Math.max(0, shellKept - 1) + (actionKept ? 2 : 0);
  };
  const dropOrder = [...kept].sort((a, b) => parts[a].p - parts[b].p || b - a);
  for (const i of dropOrder) {
    const over = lineWidth() - width;
    if (over <= 0) break;
    if (parts[i].kind === 'r' && reasonWidth - over >= REASON_MIN_WIDTH) {
      reasonWidth -= over;
      break;
    }
    kept.delete(i);
    if (parts[i].kind === 'r') reasonWidth = 0;
  }
  return {
    actions: actions.filter((_, i) => kept.has(i)),
    shell: shell.filter((_, i) => kept.has(parts.length - shell.length + i)),
    reasonWidth,
  };
}

/**
 * One line: the screen's actions (disabled ones dimmed, with the reason once), then the shell's
 * keys. The shell makes new lists on every key; the line is drawn again only when what they say
 * changed.
 */
const sameList = <T extends ShellHint>(a: T[], b: T[], same: (x: T, y: T) => boolean = () => true) =>
  a.length === b.length &&
  a.every((x, i) => x.key === b[i].key && x.label === b[i].label && x.priority === b[i].priority && same(x, b[i]));

export const KeyHints = memo(
  KeyHintsLine,
  (a: KeyHintsProps, b: KeyHintsProps) =>
    a.width === b.width &&
    sameList(a.actions, b.actions, (x, y) => sameDisabled(x.disabled, y.disabled)) &&
    sameList(a.shell, b.shell),
);

function KeyHintsLine({ actions, shell, width }: KeyHintsProps) {
  const reasons = [...new Set(actions.flatMap((a) => (a.disabled ? [a.disabled.reason] : [])))];
  const reason = reasons.length ? `(✕ ${reasons.join('; ')})` : '';
  const fitted = fitHints(actions, shell, reason, width);
  // nothing to offer (a dialog has the keys): the line stays, blank, so the status line under it does not move
  if (!fitted.actions.length && !fitted.shell.length && !fitted.reasonWidth) return <Text> </Text>;
  return (
    <Text wrap="truncate">
      {fitted.actions.map((a) => (
        <Text key={a.key} dimColor={!!a.disabled}>
          <Text bold={!a.disabled}>{a.key}</Text> {a.label}
          {a.disabled ? ' ✕' : ''}
          {'  '}
        </Text>
      ))}
      {fitted.reasonWidth ? <Text dimColor>{truncate(reason, fitted.reasonWidth - 2)} </Text> : null}
      <Text dimColor>
        {fitted.actions.length ? '│ ' : ''}
        {fitted.shell.map((s) => `${s.key} ${s.label}`).join('  ')}
      </Text>
    </Text>
  );
}
