import React, { useEffect, useRef } from 'react';
import { Box, Text, useApp, useInput, useStdout, type Key } from 'ink';
import { useStore } from 'zustand';
import { confirmedAt } from '../state/resources.js';
import { readOnlyReason } from '../state/session.js';
import { flash, patchScreen, screenState } from '../state/ui.js';
import { clockWords, Header } from './Header.js';
import { KeyHints } from '../widgets/KeyHints.js';
import { HelpOverlay } from '../widgets/HelpOverlay.js';
import { DetailView, detailLines } from '../widgets/DetailView.js';
import { scrollFor } from '../kit/table-layout.js';
import { useNowWhen, useTerminalSize } from '../terminal/hooks.js';
import { usePasteIgnored } from '../terminal/paste.js';
import { colour, themeStore } from '../kit/theme.js';
import { sanitize } from '../../text/sanitize.js';
import { offersFilter, type AnyScreen } from '../kit/screen-api.js';
import { flipSort, nextSort, sortMark } from '../kit/sort.js';
import { runAction } from './actions.js';
import { Banner, bannerFor } from './Banner.js';
import { goBack, openLink } from './navigate.js';
import { togglePause } from './pause.js';
import { commandHelp } from './commands.js';
import { BodyWithDialog } from './BodyWithDialog.js';
import { useDeps } from './deps.js';
import { bindingFor, isShellAction, keyName, keymapOf, screenActionId, type ShellHandlers } from './keymap.js';
import { shellHelp, shellHints } from './key-help.js';
import { useScreenData } from './screen-data.js';
import { actionHints, offersOf, sortNote } from './screen-hints.js';
import { detailOf, linkOf, locateRow, safeKey, selectedOf } from './screen-rows.js';
import { listPage, ScreenView } from './ScreenView.js';
import { StatusLine } from './StatusLine.js';

// Below 80x24 the layout is compact (the header, columns and hints say less, src/dashboard/shell/Header.tsx);
// below this it cannot be drawn usefully, and a message says so.
/**
 * The screens' own relative times ("12 s ago", "3 min ago") are drawn again at least this often;
 * the header's, whenever its words change (useNowWhen); both with every key and every answer that
 * changes something. A frame every second would say the same as the last one, idle, most of the time.
 */
const BODY_CLOCK_MS = 10_000;
const MIN_COLUMNS = 60;
const MIN_ROWS = 20;

/**
 * The dashboard: header, the visible screen (or its detail, help, a dialog), key hints and a
 * status line. All navigation, polling hookup and role-aware disabling happen here, so a new
 * screen needs nothing but its own file and a line in screens/index.ts.
 */
export function Shell() {
  const deps = useDeps();
  const { exit } = useApp();
  const { stdout } = useStdout();
  const ui = useStore(deps.ui);
  const session = useStore(deps.session);
  const connection = useStore(deps.resources, (s) => s.connection);
  const topDialog = useStore(deps.dialogs, (s) => s.stack.length > 0);
  const theme = useStore(themeStore, (s) => s.name);
  const screen: AnyScreen = deps.screens.find((s) => s.name === ui.screen) ?? deps.screens[0];
  const state = screenState(ui, screen.name);
  const data = useScreenData(deps, screen, state);
  const size = useTerminalSize();
  const width = Math.max(size.columns, MIN_COLUMNS);
  // the action log is the dashboard's own, current as it is drawn
  const fetchedAt = (t: number) => (screen.list?.fromActionLog ? t : confirmedAt(deps.resources, data.primary));
  const clocked = {
    failed: data.primary.status === 'error',
    loading: data.primary.status === 'loading',
    refreshMs: deps.poller.refreshMs,
    paused: deps.poller.held,
    width,
    connection,
    refused: session.authError !== null,
  };
  const now = useNowWhen(
    (t) =>
      `${clockWords({ ...clocked, freshness: { ...clocked, fetchedAt: fetchedAt(t) } }, t)}\n${Math.floor(t / BODY_CLOCK_MS)}`,
  );

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
  const banner = bannerFor(data, session, connection, Boolean(screen.list?.rowsFrom), width, screen.saysError);
  const bodyHeight = Math.max(3, height - 2 - banner.length - 2);
  const page = listPage(screen, bodyHeight);
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
  const hintActions = actionHints(deps, screen, row);
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
    deps.ui.setState({ screen: name, mode: 'normal', detailScroll: 0, flash: null, backTo: [] });
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

  const keymap = keymapOf(screen, deps.keyOverrides);
  // What each of the shell's keys does on the screen (src/config/key-bindings.ts SHELL_BINDINGS): a
  // binding without its handler here fails tsc.
  const onScreen: ShellHandlers = {
    quit: () => exit(),
    'next-screen': () => moveScreen(1),
    'previous-screen': () => moveScreen(-1),
    command: () => setMode('command'),
    help: () => setMode('help'),
    refresh: () => {
      if (deps.session.getState().signedOut && deps.signIn) return deps.signIn.open();
      deps.poller.refreshNow();
      flash(deps.ui, 'refreshing…');
    },
    pause: () => togglePause(deps),
    filter: () =>
      offersFilter(screen) ? setMode('filter') : flash(deps.ui, `the ${screen.name} screen has no / filter`),
    'sort-next': () => sortBy(false),
    'sort-flip': () => sortBy(true),
    // the innermost state first (as the hint line says: key-help.ts shellHints), then the way back
    back: () => {
      if (state.filter) patchScreen(deps.ui, screen.name, { filter: '', cursor: 0, selectedKey: null, scroll: 0 });
      else goBack(deps.ui);
    },
    open: () => openRow(),
    'cursor-up': () => moveCursor((c) => c - 1),
    'cursor-down': () => moveCursor((c) => c + 1),
    'page-up': () => moveCursor((c) => c - page),
    'page-down': () => moveCursor((c) => c + page),
    first: () => moveCursor(() => 0),
    last: () => moveCursor(() => (screen.list ? data.rows.length - 1 : 1_000_000)),
  };
  // In the detail view the moves scroll it, and Enter or Esc close it; the other keys do as on the screen.
  const scrollDetail = (to: (s: number, room: number, max: number) => number) => {
    const lines = detailLines(detailValue, width - 2).length;
    const room = detailHeight - 2;
    const max = Math.max(0, lines - room);
    const next = to(deps.ui.getState().detailScroll, room, max);
    deps.ui.setState({ detailScroll: Math.max(0, Math.min(max, next)) });
  };
  const inDetail: Partial<ShellHandlers> = {
    open: () => setMode('normal'),
    back: () => setMode('normal'),
    'cursor-up': () => scrollDetail((s) => s - 1),
    'cursor-down': () => scrollDetail((s) => s + 1),
    'page-up': () => scrollDetail((s, room) => s - room),
    'page-down': () => scrollDetail((s, room) => s + room),
    first: () => scrollDetail(() => 0),
    last: () => scrollDetail((_s, _room, max) => max),
  };

  const handleKey = (input: string, key: Key) => {
    // The store, not this render: a key can arrive before React re-subscribes this handler.
    const fresh = deps.ui.getState();
    if (tooSmallNow() || fresh.mode === 'command' || fresh.mode === 'filter' || deps.dialogs.getState().stack.length)
      return;
    const context = fresh.mode === 'help' || fresh.mode === 'detail' ? fresh.mode : 'normal';
    const id = bindingFor(keymap, keyName(input, key), context)?.id;
    // A key for a screen this render does not show yet: only moving on or quitting is safe.
    if (fresh.screen !== screen.name && id !== 'next-screen' && id !== 'previous-screen' && id !== 'quit') return;
    if (fresh.flash) deps.ui.setState({ flash: null });
    if (id === undefined) return;
    if (context === 'help') {
      if (id === 'quit') exit();
      else setMode('normal'); // Esc or ? again
      return;
    }
    if (isShellAction(id)) return ((context === 'detail' ? inDetail[id] : undefined) ?? onScreen[id])();
    const action = actions.find((a) => screenActionId(screen, a.label) === id);
    if (action) void runAction(deps, screen, action, row);
  };

  // Enter on a row: the action the screen runs on it, the screen it links to, else its detail.
  const openRow = () => {
    const enter = screen.enter !== undefined && row !== undefined && actions.find((a) => a.label === screen.enter);
    if (enter) return void runAction(deps, screen, enter, row);
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
  };

  // One key per call: KeyStdin (src/dashboard/terminal/key-stdin.ts) splits a terminal's bursts.
  useInput(handleKey, { isActive: !tooSmall && !topDialog && ui.mode !== 'command' && ui.mode !== 'filter' });
  // Always listening: Ink turns raw mode off when no input hook is active, and the terminal would
  // then echo keys and hold them for later. While the window is too small this is the only one
  // listening (dialogs and the command line wait, hidden): q and Ctrl-C quit, other keys are dropped.
  useInput((input, key) => {
    if (tooSmallNow() && bindingFor(keymap, keyName(input, key), 'too-small')?.id === 'quit') exit();
  });
  // A paste is text, never keys (src/dashboard/terminal/key-stdin.ts): with no text field focused it is dropped.
  usePasteIgnored(() =>
    flash(deps.ui, 'paste ignored: no text field has the focus (/ filters, : goes to a screen)', 'warn'),
  );

  const offers = { ...offersOf(screen), backTo: ui.backTo.at(-1) };
  const detail = (h: number) => (
    <DetailView title={detailTitle} value={detailValue} width={width} height={h} scroll={ui.detailScroll} />
  );
  // The body at a height: all of it, or what an open dialog leaves (then the dialog has the keys).
  const view = (viewHeight: number) =>
    ui.mode === 'help' ? (
      <HelpOverlay
        screen={screen.name}
        bindings={shellHelp(keymap, offers, sortNote(screen))}
        commands={commandHelp()}
        actions={hintActions}
        width={width}
        height={viewHeight}
        isActive={!tooSmall && !topDialog}
      />
    ) : ui.mode === 'detail' && gone ? (
      <Box flexDirection="column" height={viewHeight}>
        <Text color={colour('warn')} wrap="truncate">
          ▲ no longer in the list (removed, or moved off this page){seen ? '; as last seen' : ''}. Esc goes back to the
          list.
        </Text>
        {detail(viewHeight - 1)}
      </Box>
    ) : ui.mode === 'detail' ? (
      detail(viewHeight)
    ) : (
      <ScreenView screen={screen} state={{ ...state, cursor }} data={data} width={width} height={viewHeight} />
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
      {/* keyed by the theme: a new theme draws everything again, the table's kept lines included */}
      <Box
        key={theme}
        display={tooSmall ? 'none' : 'flex'}
        flexDirection="column"
        width={width}
        height={height}
        overflowY="hidden"
      >
        <Header
          url={deps.client.displayUrl}
          subject={session.subject}
          role={session.role}
          readOnly={readOnlyReason(session)}
          forcedReadOnly={session.forcedReadOnly}
          insecure={deps.client.insecureHttp}
          connection={connection}
          signedOut={session.signedOut !== null}
          refused={clocked.refused}
          freshness={{ fetchedAt: fetchedAt(now), failed: clocked.failed, loading: clocked.loading }}
          refreshMs={clocked.refreshMs}
          paused={clocked.paused}
          screens={deps.screens.map((s) => s.name)}
          current={screen.name}
          width={width}
          now={now}
        />
        <Banner lines={banner} />
        <BodyWithDialog width={width} height={bodyHeight} dialogOpen={topDialog} isActive={!tooSmall} view={view} />
        {/* only keys that work now: a dialog has them all (and shows its own); help takes only ?, Esc and q */}
        <KeyHints
          actions={topDialog || ui.mode === 'help' ? [] : hintActions}
          shell={
            topDialog
              ? []
              : shellHints(keymap, offers, {
                  context: ui.mode === 'help' || ui.mode === 'detail' ? ui.mode : 'normal',
                  filtered: ui.mode === 'filter' || state.filter !== '',
                })
          }
          width={width}
        />
        <StatusLine screen={screen} filter={state.filter} width={width} inputActive={!tooSmall} />
      </Box>
    </>
  );
}
