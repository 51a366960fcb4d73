import React, { useEffect, useReducer, useState } from 'react';
import { Text, useApp } from 'ink';
import { useStore } from 'zustand';
import { patchScreen } from '../state/ui.js';
import { CommandLine } from '../widgets/CommandLine.js';
import { TextInput } from '../widgets/TextInput.js';
import { colour } from '../kit/theme.js';
import { sanitize } from '../../text/sanitize.js';
import type { AnyScreen } from '../kit/screen-api.js';
import { commandCandidates, runCommandLine } from './commands.js';
import { useDeps } from './deps.js';

const FLASH_MS = 8000;

/**
 * The last line: the : command line, the / filter's text field, or else a message, the running
 * action, or the filter in force.
 */
export function StatusLine({
  screen,
  filter,
  width,
  inputActive,
}: {
  screen: AnyScreen;
  filter: string;
  width: number;
  inputActive: boolean;
}) {
  const deps = useDeps();
  const { exit } = useApp();
  const mode = useStore(deps.ui, (s) => s.mode);
  const flashMsg = useStore(deps.ui, (s) => s.flash);
  const busy = useStore(deps.ui, (s) => s.busy);
  const dialogOpen = useStore(deps.dialogs, (s) => s.stack.length > 0);
  // A list the appliance searches gets the text on Enter, not on every key: each key would be a
  // search of the whole trail, and the list would reload between keys.
  const onServer = Boolean(screen.list?.serverFilter);
  const [draft, setDraft] = useState<string | null>(null);
  useEffect(() => {
    if (mode !== 'filter') setDraft(null);
  }, [mode]);
  // A message fades when its time is up: one frame then, on a timer of its own (the shell's clock
  // draws only when the header's words change).
  const [, fade] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    if (!flashMsg) return;
    const left = flashMsg.at + FLASH_MS - Date.now();
    if (left <= 0) return;
    const t = setTimeout(fade, left + 1);
    return () => clearTimeout(t);
  }, [flashMsg]);
  if (mode === 'command') {
    const ctx = { deps, screen, exit };
    return (
      <CommandLine
        candidates={(typed) => commandCandidates(ctx, typed)}
        isActive={!dialogOpen && inputActive}
        width={width}
        onCancel={() => deps.ui.setState({ mode: 'normal' })}
        onRun={(typed) => runCommandLine(ctx, typed)}
      />
    );
  }
  if (mode === 'filter') {
    return (
      <Text wrap="truncate">
        /
        <TextInput
          value={draft ?? filter}
          isActive={!dialogOpen && inputActive}
          width={width - 30}
          placeholder={
            onServer ? 'type, then Enter searches on the appliance (2 characters or more)' : 'type to filter rows'
          }
          onChange={(v) =>
            onServer
              ? setDraft(v)
              : patchScreen(deps.ui, screen.name, { filter: v, cursor: 0, selectedKey: null, scroll: 0 })
          }
          onSubmit={(v) => {
            if (onServer && v !== filter)
              patchScreen(deps.ui, screen.name, { filter: v, cursor: 0, selectedKey: null, scroll: 0 });
            deps.ui.setState({ mode: 'normal' });
          }}
          onCancel={() => {
            patchScreen(deps.ui, screen.name, { filter: '', cursor: 0, selectedKey: null, scroll: 0 });
            deps.ui.setState({ mode: 'normal' });
          }}
        />
        <Text dimColor>{onServer ? '  Enter search · Esc clear' : '  Enter keep · Esc clear'}</Text>
      </Text>
    );
  }
  if (flashMsg && Date.now() - flashMsg.at < FLASH_MS)
    return (
      <Text color={colour(flashMsg.tone)} wrap="truncate">
        {sanitize(flashMsg.text, 400)}
      </Text>
    );
  if (busy)
    return (
      <Text color={colour('info')} wrap="truncate">
        ◌ {busy}…
      </Text>
    );
  if (filter)
    return (
      <Text wrap="truncate">
        filter: {filter} <Text dimColor>(/ to edit, Esc clears)</Text>
      </Text>
    );
  return <Text> </Text>;
}
