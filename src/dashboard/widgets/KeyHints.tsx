import React, { memo } from 'react';
import { Text } from 'ink';
import { truncate, widthOf } from '../kit/text.js';
import { sameDisabled, type Disabled } from '../kit/disabled.js';

export interface HintAction {
  key: string;
  label: string;
  /** its word when the line is short (default: label) */
  short?: string;
  /** why its key does nothing now (src/dashboard/kit/disabled.ts), or null */
  disabled: Disabled | null;
  /** how long it stays on a short line (higher: longer) */
  priority: number;
}

export interface ShellHint {
  key: string;
  label: string;
  short?: string;
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
/** Keys below this priority (a screen action's default) are lesser: they give way before any other says less. */
const LESSER = 60;
/** A reason cut shorter than this says nothing: it goes instead. */
const REASON_MIN_WIDTH = 12;

/** The reason for the disabled actions, whole and in its short words (the same when there are none). */
interface Reason {
  full: string;
  short: string;
}

type Fitted<T> = T & { word: string };

/**
 * What fits on one line of `width`: the lesser keys give way first (their short word, else they go),
 * then the others say their short words, then go, the lowest priority first (of equals, the
 * rightmost). The reason for disabled actions says its short words first ("read-only", never a cut
 * "role au…"), is cut only when it has none, and goes only once the keys have said their short words
 * (before the screen's actions go: they are the screen's job, disabled or not). Returns what is
 * kept, with the word each says, and the reason's words and room (with the two spaces after it).
 */
function fitHints(
  actions: HintAction[],
  shell: ShellHint[],
  reason: Reason | null,
  width: number,
): { actions: Fitted<HintAction>[]; shell: Fitted<ShellHint>[]; reasonText: string; reasonWidth: number } {
  const parts = [
    ...actions.map((a) => ({
      word: a.label,
      short: a.short,
      p: a.priority,
      kind: 'a',
      mark: a.disabled ? 2 : 0,
      key: a.key,
    })),
    ...(reason ? [{ word: '', short: undefined, p: REASON_PRIORITY, kind: 'r', mark: 0, key: '' }] : []),
    ...shell.map((s) => ({ word: s.label, short: s.short, p: s.priority, kind: 's', mark: 0, key: s.key })),
  ];
  const widthOfPart = (x: (typeof parts)[number]) =>
    x.kind === 'a' ? widthOf(`${x.key} ${x.word}  `) + x.mark : widthOf(`${x.key} ${x.word}`);
  const kept = new Set(parts.map((_, i) => i));
  let reasonText = reason?.full ?? '';
  let reasonWidth = reason ? widthOf(reason.full) + 2 : 0;
  const lineWidth = () => {
    let w = 0;
    let shellKept = 0;
    let actionKept = false;
    for (const i of kept) {
      w += parts[i].kind === 'r' ? reasonWidth : widthOfPart(parts[i]);
      if (parts[i].kind === 's') shellKept++;
      if (parts[i].kind === 'a') actionKept = true;
    }
    // two spaces between the shell's keys, and "│ " after the screen's actions
    return w + 2 * Math.max(0, shellKept - 1) + (actionKept ? 2 : 0);
  };
  // Of equals the rightmost gives way first. The lesser keys (below a screen action's default) give way
  // first, whole: their short word, else they go (the reason is cut first); then the others say their
  // short words, lowest first; then they go, lowest first.
  const order = [...kept].sort((a, b) => parts[a].p - parts[b].p || b - a);
  const giveWay = (i: number, step: 'lesser' | 'shorten' | 'drop') => {
    const over = lineWidth() - width;
    const shortens = parts[i].short !== undefined && parts[i].word !== parts[i].short;
    if (step === 'lesser' && parts[i].p >= LESSER) return;
    if (parts[i].kind === 'r' && reason) {
      if (reasonText !== reason.short) {
        reasonText = reason.short;
        reasonWidth = widthOf(reasonText) + 2;
      } else if (reason.short === reason.full && reasonWidth - over >= REASON_MIN_WIDTH) reasonWidth -= over;
      else if (step === 'drop') {
        kept.delete(i);
        reasonWidth = 0;
      }
      return;
    }
    if (step !== 'drop' && shortens) parts[i].word = parts[i].short!;
    else if (step !== 'shorten') kept.delete(i);
  };
  for (const step of ['lesser', 'shorten', 'drop'] as const)
    for (const i of order) {
      if (lineWidth() <= width) break;
      if (kept.has(i)) giveWay(i, step);
    }
  const shellStart = parts.length - shell.length;
  return {
    actions: actions.flatMap((a, i) => (kept.has(i) ? [{ ...a, word: parts[i].word }] : [])),
    shell: shell.flatMap((s, i) => (kept.has(shellStart + i) ? [{ ...s, word: parts[shellStart + i].word }] : [])),
    reasonText,
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
  a.every(
    (x, i) =>
      x.key === b[i].key &&
      x.label === b[i].label &&
      x.short === b[i].short &&
      x.priority === b[i].priority &&
      same(x, b[i]),
  );

export const KeyHints = memo(
  KeyHintsLine,
  (a: KeyHintsProps, b: KeyHintsProps) =>
    a.width === b.width &&
    sameList(a.actions, b.actions, (x, y) => sameDisabled(x.disabled, y.disabled)) &&
    sameList(a.shell, b.shell),
);

function KeyHintsLine({ actions, shell, width }: KeyHintsProps) {
  const disabled = actions.flatMap((a) => (a.disabled ? [a.disabled] : []));
  const words = (of: (d: Disabled) => string) => `(✕ ${[...new Set(disabled.map(of))].join('; ')})`;
  const reason = disabled.length ? { full: words((d) => d.reason), short: words((d) => d.short ?? d.reason) } : null;
  const fitted = fitHints(actions, shell, reason, width);
  // nothing to offer (a dialog has the keys): the line stays, blank, so the status line under it does not move
  if (!fitted.actions.length && !fitted.shell.length && !fitted.reasonWidth) return <Text> </Text>;
  return (
    <Text wrap="truncate">
      {fitted.actions.map((a) => (
        <Text key={a.key} dimColor={!!a.disabled}>
          <Text bold={!a.disabled}>{a.key}</Text> {a.word}
          {a.disabled ? ' ✕' : ''}
          {'  '}
        </Text>
      ))}
      {fitted.reasonWidth ? <Text dimColor>{truncate(fitted.reasonText, fitted.reasonWidth - 2)} </Text> : null}
      <Text dimColor>
        {fitted.actions.length ? '│ ' : ''}
        {fitted.shell.map((s) => `${s.key} ${s.word}`).join('  ')}
      </Text>
    </Text>
  );
}
