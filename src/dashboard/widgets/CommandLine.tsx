import React from 'react';
import { useLiveState } from '../terminal/hooks.js';
import { Text } from 'ink';
import { TextInput } from './TextInput.js';

export interface CommandLineProps {
  /** what Tab may complete the typed text to (whole command lines) */
  candidates(typed: string): string[];
  isActive: boolean;
  width: number;
  onRun(command: string): void;
  onCancel(): void;
}

const startsWith = (text: string, prefix: string) => text.toLowerCase().startsWith(prefix.toLowerCase());

/** Completion for `partial` (in any case): the single match, or the common prefix of several. */
function complete(partial: string, candidates: string[]): { value: string; matches: string[] } {
  const matches = candidates.filter((c) => startsWith(c, partial));
  if (matches.length === 0) return { value: partial, matches };
  if (matches.length === 1) return { value: matches[0], matches };
  const prefix = commonPrefix(matches);
  return { value: prefix.length > partial.length ? prefix : partial, matches };
}

function commonPrefix(texts: string[]): string {
  let prefix = texts[0];
  for (const t of texts) while (!startsWith(t, prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

/** `:` then a command or a screen name; Tab completes (again to cycle), Enter runs, Esc cancels. */
export function CommandLine(p: CommandLineProps) {
  const [value, setValue, getValue] = useLiveState('');
  const [matches, setMatches, getMatches] = useLiveState<string[]>([]);
  const [, setCycle, getCycle] = useLiveState(-1);
  const onTab = (shift: boolean) => {
    const value = getValue();
    const matches = getMatches();
    const cycle = getCycle();
    if (matches.length > 1 && (cycle >= 0 || matches.includes(value))) {
      const i = (cycle + (shift ? -1 : 1) + matches.length) % matches.length;
      setCycle(i);
      setValue(matches[i]);
      return;
    }
    const c = complete(value, p.candidates(value));
    setValue(c.value);
    setMatches(c.matches);
    setCycle(-1);
  };
  // the choices without the words already typed: `sort ` offers "Name  Status", not "sort Name  sort Status"
  const shared = matches.length > 1 ? commonPrefix(matches) : '';
  const cut = shared.lastIndexOf(' ') + 1;
  const hint = matches.length > 1 ? `  (${matches.map((m) => m.slice(cut)).join('  ')})` : '';
  return (
    <Text wrap="truncate">
      :
      <TextInput
        value={value}
        isActive={p.isActive}
        width={Math.max(10, p.width - hint.length - 2)}
        onChange={(v) => {
          setValue(v);
          setMatches([]);
          setCycle(-1);
        }}
        onTab={onTab}
        onSubmit={(v) => p.onRun(v.trim())}
        onCancel={p.onCancel}
      />
      <Text dimColor>{hint}</Text>
    </Text>
  );
}
