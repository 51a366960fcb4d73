import React, { useEffect, useState } from 'react';
import { Text, useApp } from 'ink';
import { useStore } from 'zustand';
import { flash, patchScreen } from '../store/ui.js';
import { CommandLine } from '../ui/CommandLine.js';
import { TextInput } from '../ui/TextInput.js';
import { colour } from '../ui/theme.js';
import { sanitize } from '../text/sanitize.js';
import type { AnyScreen } from '../ui/screen-api.js';
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
  const aliases = deps.display.aliases;
  const commands = [...deps.screens.map((s) => s.name), ...Object.keys(aliases), 'help', 'quit', 'q'];
  if (mode === 'command') {
    return (
      <CommandLine
        commands={commands}
        isActive={!dialogOpen && inputActive}
        width={width}
        onCancel={() => deps.ui.setState({ mode: 'normal' })}
        onRun={(typed) => {
          // a config file's `:` alias stands for what it names (src/cli/dashboard-args.ts)
          const cmd = Object.hasOwn(aliases, typed) ? aliases[typed] : typed;
          if (cmd === 'q' || cmd === 'quit' || cmd === 'q!') return exit();
          if (cmd === 'help' || cmd === '?') return deps.ui.setState({ mode: 'help' });
          if (cmd === '') return deps.ui.setState({ mode: 'normal' });
          const exact = deps.screens.find((s) => s.name === cmd);
          const prefixed = deps.screens.filter((s) => s.name.startsWith(cmd));
          const target = exact ?? (prefixed.length === 1 ? prefixed[0] : undefined);
          if (target) return deps.ui.setState({ screen: target.name, mode: 'normal', detailScroll: 0, flash: null });
          deps.ui.setState({ mode: 'normal' });
          flash(
            deps.ui,
            `no screen "${sanitize(cmd, 40)}"${prefixed.length > 1 ? ` (could be ${prefixed.map((s) => s.name).join(', ')})` : ''}; : then Tab lists them`,
            'warn',
          );
        }}
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
  // The shell re-renders every second, so an old message fades without a timer of its own.
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
