import React, { memo } from 'react';
import { Text } from 'ink';
import { truncate } from './text.js';

export interface HintAction {
  key: string;
  label: string;
  disabled: string | null;
}

/** `enter`: what Enter does on this screen ("open" where a row opens the screen of its cause) */
interface KeyHintsProps {
  actions: HintAction[];
  width: number;
  extra?: string;
  filter?: boolean;
  sort?: boolean;
  enter?: string;
}

/**
 * One line: the screen's actions (disabled ones dimmed, with the reason once), then the
 * shell's keys (`/ filter` only where the screen has a filter, `s sort` only on a list). The shell makes new action lists
 * on every key; the line is drawn again only when what they say changed.
 */
const sameActions = (a: HintAction[], b: HintAction[]) =>
  a.length === b.length &&
  a.every((x, i) => x.key === b[i].key && x.label === b[i].label && x.disabled === b[i].disabled);

export const KeyHints = memo(
  KeyHintsLine,
  (a: KeyHintsProps, b: KeyHintsProps) =>
    a.width === b.width &&
    a.extra === b.extra &&
    a.filter === b.filter &&
    a.sort === b.sort &&
    a.enter === b.enter &&
    sameActions(a.actions, b.actions),
);

function KeyHintsLine({ actions, width, extra, filter = true, sort = false, enter = 'detail' }: KeyHintsProps) {
  const reasons = [...new Set(actions.map((a) => a.disabled).filter((r): r is string => !!r))];
  const globals =
    extra ??
    `⏎ ${enter}  ${filter ? '/ filter  ' : ''}${sort ? 's sort  ' : ''}: screen  Tab next  ? help  r refresh  q quit`;
  const parts: React.ReactNode[] = [];
  let used = 0;
  for (const a of actions) {
    const t = `${a.key} ${a.label}${a.disabled ? ' ✕' : ''}  `;
    used += t.length;
    parts.push(
      <Text key={a.key} dimColor={!!a.disabled}>
        <Text bold={!a.disabled}>{a.key}</Text> {a.label}
        {a.disabled ? ' ✕' : ''}
        {'  '}
      </Text>,
    );
  }
  const reason = reasons.length ? `(✕ ${reasons.join('; ')})  ` : '';
  return (
    <Text wrap="truncate">
      {parts}
      {reason ? <Text dimColor>{truncate(reason, Math.max(0, width - used - 10))}</Text> : null}
      <Text dimColor>
        {actions.length ? '│ ' : ''}
        {globals}
      </Text>
    </Text>
  );
}
