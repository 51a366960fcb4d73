import React, { useEffect, useRef, useState } from 'react';
import { Box, Text, useApp, useInput, useStdout, type Key } from 'ink';
import { useStore } from 'zustand';
import { TransportError } from '../client/errors.js';
import type { ConnectionInfo } from '../store/resources.js';
import { readOnlyReason } from '../store/session.js';
import { flash, patchScreen, screenState } from '../store/ui.js';
import { Header } from '../ui/Header.js';
import { KeyHints } from '../ui/KeyHints.js';
import { HelpOverlay } from '../ui/HelpOverlay.js';
import { CommandLine } from '../ui/CommandLine.js';
import { TextInput } from '../ui/TextInput.js';
import { DetailView, detailLines } from '../ui/DetailView.js';
import { visibleRows } from '../ui/Table.js';
import { scrollFor } from '../ui/table-layout.js';
import { errorLines } from '../ui/error-lines.js';
import { useNow, useTerminalSize } from '../ui/hooks.js';
import { usePasteIgnored } from '../ui/paste.js';
import { colour } from '../ui/theme.js';
import { sanitize } from '../text/sanitize.js';
import { truncate, wrapText } from '../ui/text.js';
import { offersFilter, type AnyScreen, type ScreenLink } from '../ui/screen-api.js';
import { flipSort, nextSort, sortMark } from '../ui/sort.js';
import { runAction, whyNot } from './actions.js';
import { openLink } from './navigate.js';
import { DialogHost } from './DialogHost.js';
import { useDeps } from './deps.js';
import { useScreenData, type ScreenData } from './screen-data.js';
import { ScreenView } from './ScreenView.js';

export const MIN_COLUMNS = 80;
export const MIN_ROWS = 24;
const FLASH_MS = 8000;

interface BannerLine {
  text: string;
  tone: 'bad' | 'warn';
}

interface SignedOut {
  title: string;
  message: string;
}

/**
 * Problems with the visible screen's data, in at most three lines. A list made from all its
 * resources (the overview) says in its own rows which could not be read: not repeated here.
 */
function bannerLines(
  data: ScreenData,
  authError: string | null,
  connection: ConnectionInfo,
  signedOut: SignedOut | null,
  rowsSayErrors: boolean,
): BannerLine[] {
  const out: BannerLine[] = [];
  const connectionError = connection.error;
  if (signedOut) {
    // Not an error of the dashboard: the sign-in ran its course. Its words, and the way back.
    const last = data.primary.data === undefined ? '' : ' The last data stays on screen.';
    out.push({ text: `▲ SIGNED OUT (r signs in again): ${signedOut.message}${last}`, tone: 'warn' });
  } else if (connection.state === 'down' && connection.identityProvider) {
    out.push({
      text: `✕ cannot renew the sign-in for now: ${connectionError ?? 'no answer'}; a temporary problem, the sign-in is kept${data.primary.data === undefined ? '' : '; showing the last data'} (r retries now)`,
      tone: 'bad',
    });
  } else if (connection.state === 'down') {
    const text =
      data.primary.data === undefined
        ? `✕ cannot connect: ${connectionError ?? 'no answer'} (r retries now)`
        : `✕ connection lost: ${connectionError ?? 'no answer'}; showing the last data (r retries now)`;
    out.push({ text, tone: 'bad' });
  }
  const connectionDown = connection.state === 'down';
  if (authError) out.push({ text: `✕ ERROR ${authError}`, tone: 'bad' });
  for (const [id, e] of Object.entries(data.resources)) {
    if (e.status === 'error' && e.error && !rowsSayErrors && !(connectionDown && e.error instanceof TransportError)) {
      const l = errorLines(e.error);
      // the first reason the appliance gave (a refused filter: which parameter, and why)
      const why = l.details[0] ? ` (${l.details[0]})` : '';
      out.push({
        text: `✕ ERROR loading ${id}${e.stale ? ' (showing the last data)' : ''}: ${l.headline}${why}`,
        tone: 'bad',
      });
      if (l.reference) out.push({ text: `  ${l.reference}`, tone: 'bad' });
    } else if (e.issues.length) {
      const first = e.issues[0];
      out.push({
        text: `▲ the answer for ${id} does not fit the contract (${e.issues.length} issue${e.issues.length > 1 ? 's' : ''}): ${first.path}: ${first.message}`,
        tone: 'warn',
      });
    }
  }
  return out.slice(0, 3);
}

/** Plain words run long: each problem gets up to two lines, the banner four in all. */
function wrapBanner(lines: BannerLine[], width: number): BannerLine[] {
  return lines
    .flatMap((b) => {
      const parts = wrapText(sanitize(b.text, 400), Math.max(20, width - 2));
      const shown = parts.slice(0, 2);
      if (parts.length > 2) shown[1] = truncate(parts.slice(1).join(' '), Math.max(20, width - 2));
      return shown.map((text, i) => ({ text: i === 0 ? text : `  ${text}`, tone: b.tone }));
    })
    .slice(0, 4);
}

/**
 * The dashboard: header, the visible screen (or its detail, help, a dialog), key hints and a
 * status line. All navigation, polling hookup and role-aware disabling happen here, so a new
 * screen needs nothing but its own file and a line in screens/index.ts.
 */
export function Shell() {
  const deps = useDeps();
  const { exit } = useApp();
  const size = useTerminalSize();
  const { stdout } = useStdout();
  const now = useNow(1000);
  const ui = useStore(deps.ui);
  const session = useStore(deps.session);
  const connection = useStore(deps.resources, (s) => s.connection);
  const topDialog = useStore(deps.dialogs, (s) => s.stack.length > 0);
  const screen: AnyScreen = deps.screens.find((s) => s.name === ui.screen) ?? deps.screens[0];
  const state = screenState(ui, screen.name);
  const data = useScreenData(deps, screen, state);

  useEffect(() => {
    deps.poller.start();
    return () => deps.poller.stop();
  }, [deps]);

  const tooSmall = size.columns < MIN_COLUMNS || size.rows < MIN_ROWS;
  // The terminal now: input handlers change after a render's effects, and a key can come first.
  const tooSmallNow = () => (stdout.columns || 80) < MIN_COLUMNS || (stdout.rows || 24) < MIN_ROWS;
  // Too small, the frame stays mounted but hidden, laid out at the smallest size it supports: an
  // open dialog, form or command line keeps what was typed and is back when the window grows.
  const height = Math.max(size.rows, MIN_ROWS) - 1; // a frame as tall as the terminal makes Ink clear the screen on every update
  const width = Math.max(size.columns, MIN_COLUMNS);
  const banner = wrapBanner(
    bannerLines(data, session.authError, connection, session.signedOut, Boolean(screen.list?.rowsFrom)),
    width,
  );
  const bodyHeight = Math.max(3, height - 2 - banner.length - 2);
  const summaryLines = screen.list?.summary ? 1 : 0;
  const page = visibleRows(bodyHeight - summaryLines);
  const located = locateRow(screen, data.rows, state);
  const cursor = located.index;
  // The open detail's record left the list: it is not replaced by whatever row took its place.
  const gone =
    Boolean(screen.list) &&
    ui.mode === 'detail' &&
    state.selectedKey !== null &&
    !located.found &&
    data.primary.data !== undefined;
  const row = screen.list ? (gone ? undefined : data.rows[cursor]) : selectedOf(screen, data, state);
  const actions = screen.actions ?? [];
  const hintActions = actions.map((a) => ({
    key: a.key,
    label: a.label,
    mutates: a.mutates,
    disabled: whyNot(deps, a, row)?.replace(/^disabled: /, '') ?? null,
  }));
  const lastSeen = useRef<{ screen: string; key: string; value: unknown } | null>(null);
  const seen =
    lastSeen.current?.screen === screen.name && lastSeen.current.key === state.selectedKey ? lastSeen.current : null;
  const detailValue = !screen.list
    ? row === undefined
      ? data.primary.data
      : detailOf(screen, row)
    : gone
      ? seen?.value
      : row === undefined
        ? undefined
        : detailOf(screen, row);
  const detailTitle = gone
    ? state.selectedKey!
    : screen.list && row !== undefined
      ? safeKey(screen, row)
      : screen.title;
  if (ui.mode === 'detail' && screen.list && row !== undefined)
    lastSeen.current = { screen: screen.name, key: safeKey(screen, row), value: detailValue };
  const detailHeight = gone ? bodyHeight - 1 : bodyHeight;

  // Once the operator has moved the cursor or opened a record, the cursor holds that record, not
  // a position: new rows above it (a journal, the audit trail) move it down with its record
  // (locateRow). An untouched cursor stays on the first row, the newest. When the record leaves
  // the list, the cursor takes the row now in its place, and says so.
  useEffect(() => {
    if (!screen.list || data.primary.data === undefined || data.rows.length === 0) return;
    const fresh = deps.ui.getState();
    const st = screenState(fresh, screen.name);
    if (st.selectedKey === null || fresh.mode === 'detail') return;
    const at = locateRow(screen, data.rows, st);
    if (at.found) return;
    const key = safeKey(screen, data.rows[at.index]);
    if (key === st.selectedKey) return;
    flash(
      deps.ui,
      `${sanitize(st.selectedKey, 60)} is no longer in the list; the cursor is on the row now in its place`,
      'warn',
    );
    patchScreen(deps.ui, screen.name, { cursor: at.index, selectedKey: key });
  });

  const setMode = (mode: typeof ui.mode) => deps.ui.setState({ mode, detailScroll: 0 });
  const go = (name: string) => {
    deps.ui.setState({ screen: name, mode: 'normal', detailScroll: 0, flash: null });
  };
  const moveScreen = (d: number) => {
    const i = deps.screens.findIndex((s) => s.name === deps.ui.getState().screen);
    go(deps.screens[(i + d + deps.screens.length) % deps.screens.length].name);
  };
  // Reads the store, not this render's values (see handleKey).
  const moveCursor = (to: (current: number) => number) => {
    const fresh = screenState(deps.ui.getState(), screen.name);
    if (!screen.list) {
      // Custom views get the keys as a scroll offset; they clamp it to what they draw.
      const next = to(fresh.scroll);
      return patchScreen(deps.ui, screen.name, { scroll: Math.max(0, Number.isFinite(next) ? next : 0) });
    }
    const c = Math.max(0, Math.min(data.rows.length - 1, to(locateRow(screen, data.rows, fresh).index)));
    const selectedKey = data.rows[c] === undefined ? null : safeKey(screen, data.rows[c]);
    patchScreen(deps.ui, screen.name, {
      cursor: c,
      selectedKey,
      scroll: scrollFor(c, fresh.scroll, page, data.rows.length),
    });
  };

  // s: the next column (then the appliance's order again); S: the other direction. The cursor
  // keeps its row, wherever the new order puts it.
  const sortBy = (flip: boolean) => {
    if (!screen.list) return flash(deps.ui, `the ${screen.name} screen is not a list: nothing to sort`);
    if (screen.list.serverOrder) return flash(deps.ui, screen.list.serverOrder.note);
    const fresh = screenState(deps.ui.getState(), screen.name);
    const columns = screen.list.columns;
    const next = flip ? flipSort(columns, fresh.sort) : nextSort(columns, fresh.sort);
    const held = fresh.selectedKey ?? (row === undefined ? null : safeKey(screen, row));
    patchScreen(deps.ui, screen.name, { sort: next, selectedKey: held, cursor });
    flash(
      deps.ui,
      next
        ? `sorted by ${next.column} ${sortMark(next.descending)} (${next.descending ? 'descending' : 'ascending'}; s next column, S flips)`
        : "in the appliance's order (s sorts by a column)",
    );
  };

  const handleKey = (input: string, key: Key) => {
    // The store, not this render: a key can arrive before React re-subscribes this handler.
    const fresh = deps.ui.getState();
    if (tooSmallNow() || fresh.mode === 'command' || fresh.mode === 'filter' || deps.dialogs.getState().stack.length)
      return;
    // A key for a screen this render does not show yet: only moving on or quitting is safe.
    if (fresh.screen !== screen.name && !key.tab && input !== 'q') return;
    if (fresh.flash) deps.ui.setState({ flash: null });
    if (fresh.mode === 'help') {
      if (key.escape || input === '?') setMode('normal');
      else if (input === 'q') exit();
      return;
    }
    if (input === 'q') return exit();
    if (key.tab) return moveScreen(key.shift ? -1 : 1);
    if (input === ':') return setMode('command');
    if (input === '?') return setMode('help');
    if (input === 'r') {
      if (deps.session.getState().signedOut && deps.signIn) return deps.signIn.open();
      deps.poller.refreshNow();
      return flash(deps.ui, 'refreshing…');
    }
    if (fresh.mode === 'detail') {
      const lines = detailLines(detailValue, width - 2).length;
      const room = detailHeight - 2;
      const max = Math.max(0, lines - room);
      const s = deps.ui.getState().detailScroll;
      let next = s;
      if (key.escape || key.return) return setMode('normal');
      if (key.upArrow || input === 'k') next = s - 1;
      else if (key.downArrow || input === 'j') next = s + 1;
      else if (key.pageUp) next = s - room;
      else if (key.pageDown) next = s + room;
      else if (key.home || input === 'g') next = 0;
      else if (key.end || input === 'G') next = max;
      else return tryAction(input);
      return deps.ui.setState({ detailScroll: Math.max(0, Math.min(max, next)) });
    }
    if (input === '/')
      return offersFilter(screen) ? setMode('filter') : flash(deps.ui, `the ${screen.name} screen has no / filter`);
    if (input === 's' || input === 'S') return sortBy(input === 'S');
    if (key.escape) {
      if (state.filter) patchScreen(deps.ui, screen.name, { filter: '', cursor: 0, selectedKey: null, scroll: 0 });
      return;
    }
    if (key.return) {
      const link = screen.list && row !== undefined ? linkOf(screen, row) : null;
      if (link) {
        const refused = openLink(deps.ui, deps.screens, link);
        return refused ? flash(deps.ui, refused, 'warn') : undefined;
      }
      if (detailValue === undefined) return flash(deps.ui, 'nothing to show in detail yet');
      // the detail holds this record from now on, whatever arrives above it
      if (screen.list && row !== undefined)
        patchScreen(deps.ui, screen.name, { cursor, selectedKey: safeKey(screen, row) });
      return setMode('detail');
    }
    if (key.upArrow || input === 'k') return moveCursor((c) => c - 1);
    if (key.downArrow || input === 'j') return moveCursor((c) => c + 1);
    if (key.pageUp) return moveCursor((c) => c - page);
    if (key.pageDown) return moveCursor((c) => c + page);
    if (key.home || input === 'g') return moveCursor(() => 0);
    if (key.end || input === 'G') return moveCursor(() => (screen.list ? data.rows.length - 1 : 1_000_000));
    tryAction(input);
  };

  // One key per call: KeyStdin (src/app/key-stdin.ts) splits a terminal's bursts.
  useInput(handleKey, { isActive: !tooSmall && !topDialog && ui.mode !== 'command' && ui.mode !== 'filter' });
  // Always listening: Ink turns raw mode off when no input hook is active, and the terminal would
  // then echo keys and hold them for later. While the window is too small this is the only one
  // listening (dialogs and the command line wait, hidden): q and Ctrl-C quit, other keys are dropped.
  useInput((input, key) => {
    if (tooSmallNow() && (input === 'q' || (key.ctrl && input === 'c'))) exit();
  });
  // A paste is text, never keys (src/app/key-stdin.ts): with no text field focused it is dropped.
  usePasteIgnored(() =>
    flash(deps.ui, 'paste ignored: no text field has the focus (/ filters, : goes to a screen)', 'warn'),
  );

  function tryAction(input: string) {
    const action = actions.find((a) => a.key === input);
    if (!action) return;
    void runAction(deps, screen, action, row);
  }

  const detail = (
    <DetailView title={detailTitle} value={detailValue} width={width} height={detailHeight} scroll={ui.detailScroll} />
  );
  const body = topDialog ? (
    <Box height={bodyHeight} flexDirection="column" justifyContent="center" overflow="hidden">
      <DialogHost width={width} height={bodyHeight} isActive={!tooSmall} />
    </Box>
  ) : ui.mode === 'help' ? (
    <HelpOverlay
      screen={screen.name}
      actions={hintActions}
      width={width}
      height={bodyHeight}
      filter={offersFilter(screen)}
      sort={sortHelp(screen)}
      isActive={!tooSmall}
      opens={Boolean(screen.open)}
    />
  ) : ui.mode === 'detail' && gone ? (
    <Box flexDirection="column" height={bodyHeight}>
      <Text color={colour('warn')} wrap="truncate">
        ▲ no longer in the list (removed, or moved off this page){seen ? '; as last seen' : ''}. Esc goes back to the
        list.
      </Text>
      {detail}
    </Box>
  ) : ui.mode === 'detail' ? (
    detail
  ) : (
    <ScreenView screen={screen} state={{ ...state, cursor }} data={data} width={width} height={bodyHeight} />
  );

  // One tree whatever the size (the message comes and goes in its own slot), so nothing remounts.
  return (
    <>
      {tooSmall ? (
        <Box flexDirection="column">
          <Text bold>appliance-admin</Text>
          <Text>
            The terminal is {size.columns}x{size.rows}; the dashboard needs at least {MIN_COLUMNS}x{MIN_ROWS}.
          </Text>
          <Text>Make the window larger (it follows resizes), or press q to quit.</Text>
        </Box>
      ) : null}
      <Box display={tooSmall ? 'none' : 'flex'} flexDirection="column" width={width} height={height} overflowY="hidden">
        <Header
          url={deps.client.displayUrl}
          subject={session.subject}
          role={session.role}
          readOnly={readOnlyReason(session)}
          forcedReadOnly={session.forcedReadOnly}
          insecure={deps.client.insecureHttp}
          connection={connection}
          signedOut={session.signedOut !== null}
          freshness={{
            fetchedAt: data.primary.fetchedAt,
            failed: data.primary.status === 'error',
            loading: data.primary.status === 'loading',
          }}
          intervalMs={deps.refreshMs}
          screens={deps.screens.map((s) => s.name)}
          current={screen.name}
          width={width}
          now={now}
        />
        {banner.map((b, i) => (
          <Text key={i} color={colour(b.tone)} wrap="truncate">
            {b.text}
          </Text>
        ))}
        <Box height={bodyHeight} flexDirection="column" overflowY="hidden">
          {body}
        </Box>
        <KeyHints
          actions={hintActions}
          width={width}
          filter={offersFilter(screen)}
          sort={Boolean(screen.list)}
          enter={screen.open ? 'open' : 'detail'}
        />
        <StatusLine screen={screen} filter={state.filter} width={width} inputActive={!tooSmall} />
      </Box>
    </>
  );
}

function StatusLine({
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

/**
 * The selected row's index: where its key is now (found), else the remembered position (not
 * found: no key yet, or its record left the list).
 */
function locateRow(
  screen: AnyScreen,
  rows: unknown[],
  state: { cursor: number; selectedKey: string | null },
): { index: number; found: boolean } {
  if (state.selectedKey !== null) {
    // usually the row is still where the cursor left it: no search through a long list
    const at = state.cursor < rows.length ? rows[state.cursor] : undefined;
    if (at !== undefined && safeKey(screen, at) === state.selectedKey) return { index: state.cursor, found: true };
    const i = rows.findIndex((r) => safeKey(screen, r) === state.selectedKey);
    if (i >= 0) return { index: i, found: true };
  }
  return { index: Math.max(0, Math.min(state.cursor, rows.length - 1)), found: false };
}

/** What s and S do on this screen, for the help: nothing on a custom view. */
function sortHelp(screen: AnyScreen): string | null {
  if (!screen.list) return null;
  return (
    screen.list.serverOrder?.note ??
    "sort by the next column (▲▼ in its header) / flip the order; again past the last: the appliance's order"
  );
}

/** Where Enter on this row leads, when its screen links rows elsewhere; a throwing link is no link. */
function linkOf(screen: AnyScreen, row: unknown): ScreenLink | null {
  try {
    return screen.open?.(row) ?? null;
  } catch {
    return null;
  }
}

/** The row under a custom view's cursor, when it has one; a throwing view has none. */
function selectedOf(screen: AnyScreen, data: ScreenData, state: ReturnType<typeof screenState>): unknown {
  try {
    return screen.selected?.(data.resources, state);
  } catch {
    return undefined;
  }
}

/** What Enter shows for a row: the screen's view of it, or the row itself if that view fails. */
function detailOf(screen: AnyScreen, row: unknown): unknown {
  try {
    return screen.detail ? screen.detail(row) : row;
  } catch {
    return row;
  }
}

/** Always a string, so that a key compares equal to itself (an id sent as NaN or an object would not). */
function safeKey(screen: AnyScreen, row: unknown): string {
  try {
    return screen.list ? String(screen.list.rowKey(row)) : screen.title;
  } catch {
    return screen.title;
  }
}
