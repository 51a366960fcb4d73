/**
 * The config's `notify`: while another screen is shown, a CRIT that appears on the overview rings
 * the terminal bell (BEL) or sends an OSC 9 notification, and says so in the status line. The
 * overview's resources are then polled in the background too (at their own pace: most of them
 * every 10 s), and its board is the overview's own rows; what counts as new is the same rule as
 * `appliance-admin watch`'s (src/dashboard/triage/changes.ts). The board before every resource has
 * answered once is not compared: nothing is new in a board still loading.
 */
import type { AnyScreen } from '../kit/screen-api.js';
import type { ResourceEntry, ResourceRequest } from '../kit/resource.js';
import type { ResourceStore } from '../state/resources.js';
import { emptyEntry } from '../state/resources.js';
import { flash, screenState, type UiStore } from '../state/ui.js';
import { boardChanges, type BoardMemory } from '../triage/changes.js';
import type { TriageLine } from '../triage/line.js';
import { sanitize } from '../../text/sanitize.js';
import type { PinnedAuditKey } from '../../audit-chain/keys-file.js';
import { screenResources } from './screen-resources.js';

/** The screen whose board is watched: the overview (its rows are triage lines). */
const BOARD_SCREEN = 'overview';

export type Notice = 'off' | 'bell' | 'osc9';

/** What is written to the terminal for `text`: BEL, or OSC 9 (which ends with BEL, so a terminal without it at worst beeps). */
const noticeSequence = (kind: Exclude<Notice, 'off'>, text: string): string =>
  kind === 'bell' ? '\x07' : `\x1b]9;${sanitize(text, 200)}\x07`;

export function boardScreen(screens: readonly AnyScreen[]): AnyScreen | undefined {
  return screens.find((s) => s.name === BOARD_SCREEN && s.list?.rowsFrom);
}

/** The board's requests, for the poller while another screen is shown. */
export function boardRequests(board: AnyScreen, ui: UiStore): ResourceRequest[] {
  return screenResources(board, screenState(ui.getState(), board.name)).requests;
}

/**
 * Watches the board for new CRIT lines; returns the unsubscribe. `write` puts the sequence on the
 * terminal (injected: tests read it).
 */
export function watchForCrit(o: {
  kind: Exclude<Notice, 'off'>;
  board: AnyScreen;
  resources: ResourceStore;
  ui: UiStore;
  auditKey?: PinnedAuditKey;
  write(sequence: string): void;
}): () => void {
  let memory: BoardMemory | null = null;
  let seen: ResourceEntry[] = [];
  const check = () => {
    const { requests, keys } = screenResources(o.board, screenState(o.ui.getState(), o.board.name));
    const entries = o.resources.getState().entries;
    const now = keys.map((k) => entries[k] ?? emptyEntry(k));
    if (now.length === seen.length && now.every((e, i) => e === seen[i])) return;
    seen = now;
    // a board still loading has nothing new in it
    if (now.some((e) => e.fetchedAt === null && e.status !== 'error')) return;
    const byId = Object.fromEntries(requests.map((r, i) => [r.id, now[i]]));
    let lines: TriageLine[];
    try {
      lines = (o.board.list!.rowsFrom!(byId, { auditKey: o.auditKey }) ?? []) as TriageLine[];
    } catch {
      return;
    }
    const first = memory === null;
    const { changes, memory: next } = boardChanges(memory, lines);
    memory = next;
    const crits = changes.filter((c) => c.now === 'crit');
    if (first || !crits.length || o.ui.getState().screen === o.board.name) return;
    const what = crits.map((c) => c.line.what).join(', ');
    const text = `CRIT on the overview: ${what}`;
    o.write(noticeSequence(o.kind, `appliance-admin: ${text}`));
    flash(o.ui, sanitize(text, 300), 'bad');
  };
  check();
  return o.resources.subscribe(check);
}
