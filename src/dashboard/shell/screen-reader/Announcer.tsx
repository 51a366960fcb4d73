import React, { useEffect, useMemo, useRef } from 'react';
import { useStore } from 'zustand';
import { screenState } from '../../state/ui.js';
import { flatten } from '../../kit/flatten.js';
import type { AnyScreen } from '../../kit/screen-api.js';
import { App } from '../App.js';
import { DepsContext, useDeps, type DashboardDeps } from '../deps.js';
import { keymapOf } from '../keymap.js';
import { shellHelp } from '../key-help.js';
import { useScreenData, type ScreenData } from '../screen-data.js';
import { actionHints, offersOf, sortNote } from '../screen-hints.js';
import { detailOf, locateRow, safeKey } from '../screen-rows.js';
import { narrate, type Snapshot } from './narrate.js';
import { rowText, speakable } from './speech.js';

/** Each row's content by its key; a row that cannot be written out is compared by identity. */
function rowSignatures(screen: AnyScreen, rows: unknown[]): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  let opaque = 0;
  for (const row of rows) {
    let text: string;
    try {
      text = JSON.stringify(row) ?? String(row);
    } catch {
      text = `opaque ${opaque++}`;
    }
    out.set(safeKey(screen, row), text);
  }
  return out;
}

function pageOf(deps: DashboardDeps, screen: AnyScreen, mode: Snapshot['mode'], data: ScreenData, row: unknown) {
  if (mode === 'help') {
    const keys = shellHelp(keymapOf(screen, deps.keyOverrides), offersOf(screen), sortNote(screen)).map(
      ([k, text]) => `${speakable(k)}: ${speakable(text)}`,
    );
    // as the help shows them: the keys rebound, and why a disabled one does nothing
    const actions = actionHints(deps, screen, row).map(
      (a) =>
        `${speakable(a.key)}: ${speakable(a.label)}${a.disabled ? `, disabled: ${speakable(a.disabled.reason)}` : ''}`,
    );
    return [`help for the ${screen.name} screen; Esc closes`, ...keys, ...actions];
  }
  if (mode !== 'detail') return [];
  const value = row === undefined ? data.primary.data : detailOf(screen, row);
  const title = screen.list && row !== undefined ? safeKey(screen, row) : screen.title;
  const lines = flatten(value).map(([k, v]) => `${speakable(k, 120)}: ${speakable(v, 2000)}`);
  return [`detail of ${speakable(title, 120)}, ${lines.length} lines; Esc goes back`, ...lines];
}

/**
 * Says what changes on the dashboard as short lines (src/dashboard/shell/screen-reader/narrate.ts), from the
 * same stores the shell draws from; it draws nothing itself.
 */
function Announcer({ say }: { say(line: string): void }) {
  const deps = useDeps();
  const ui = useStore(deps.ui);
  const connection = useStore(deps.resources, (s) => s.connection);
  const dialog = useStore(deps.dialogs, (s) => s.stack[s.stack.length - 1] ?? null);
  const screen = deps.screens.find((s) => s.name === ui.screen) ?? deps.screens[0];
  const state = screenState(ui, screen.name);
  const data = useScreenData(deps, screen, state);
  const rows = useMemo(() => rowSignatures(screen, data.rows), [screen, data.rows]);
  const last = useRef<Snapshot | null>(null);

  useEffect(() => {
    const list = screen.list;
    const at = list ? locateRow(screen, data.rows, state) : null;
    const row = at ? data.rows[at.index] : undefined;
    const snapshot: Snapshot = {
      screen: screen.name,
      title: screen.title,
      mode: ui.mode,
      // every answer in (or failed): a column filled in by a second answer is not a change to say
      loaded: Object.values(data.resources).every((e) => e.data !== undefined || e.status === 'error'),
      failed: data.primary.status === 'error' && data.primary.data === undefined,
      dialog: dialog && { id: dialog.id, spec: dialog.spec, form: dialog.form ?? null },
      flash: ui.flash,
      connection,
      list:
        list && at
          ? {
              view: JSON.stringify([state.filter, state.sort ?? null]),
              filter: state.filter,
              empty: (typeof list.empty === 'function' ? list.empty(state) : list.empty) ?? 'nothing to show',
              rows,
              count: data.rows.length,
              cursor: at.index,
              cursorKey: row === undefined ? null : safeKey(screen, row),
              cursorText: row === undefined ? null : rowText(list.columns, row),
            }
          : null,
      page: pageOf(deps, screen, ui.mode, data, row),
    };
    for (const line of narrate(last.current, snapshot)) say(line);
    last.current = snapshot;
  });
  return null;
}

/** The dashboard with its frame drawn where no one reads it, and its changes said as lines. */
export function ScreenReaderApp({ deps, say }: { deps: DashboardDeps; say(line: string): void }) {
  return (
    <>
      <App deps={deps} />
      <DepsContext.Provider value={deps}>
        <Announcer say={say} />
      </DepsContext.Provider>
    </>
  );
}
