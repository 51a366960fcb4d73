import { createContext, useContext } from 'react';
import type { ApiClient } from '../../client/api-client.js';
import { createActionLog, recordExchange, type ActionLogStore } from '../state/action-log.js';
import { Poller } from '../state/poller.js';
import { createResourceStore, resourceKey, type ResourceStore } from '../state/resources.js';
import { createSessionStore, type SessionStore } from '../state/session.js';
import { createUiStore, patchScreen, screenState, type UiStore } from '../state/ui.js';
import type { AnyScreen } from '../kit/screen-api.js';
import { createDialogStore, type DialogStore } from '../state/dialogs.js';
import { validateScreens } from './registry.js';
import { boardRequests, boardScreen, watchForCrit } from './crit-notice.js';
import { followKeptCheckpoint } from './kept-checkpoint.js';
import { screenResources, type ScreenResources } from './screen-resources.js';
import { SignIn, type SignInSetup } from './sign-in.js';
import { defaultSorts, withChosenColumns } from './screen-prefs.js';
import { keyOverridesOf } from '../../config/key-names.js';
import type { KeyOverrides } from '../../config/key-names.js';
import type { PinnedAuditKey } from '../../audit-chain/keys-file.js';
import type { DisplaySettings } from '../../config/display-settings.js';

/** Everything the shell and the actions share; one per dashboard (tests run several). */
export interface DashboardDeps {
  client: ApiClient;
  session: SessionStore;
  resources: ResourceStore;
  ui: UiStore;
  dialogs: DialogStore;
  poller: Poller;
  /** the changes the dashboard sent since it started (the log screen) */
  actionLog: ActionLogStore;
  /** the stored sign-in's renewal prompt; absent for a token from a file or variable */
  signIn?: SignIn;
  screens: AnyScreen[];
  /** the config file's display settings (src/cli/dashboard-settings.ts) */
  display: DisplaySettings;
  /** the config file's key rebindings, as the keymap takes them */
  keyOverrides: KeyOverrides;
  /** what the config file gives the `:` commands */
  settings: DashboardSettings;
  /** where an export's file field starts (the config's export_folder; default the working directory) */
  exportFolder: string;
  /** the audit key pinned for this appliance (--audit-key, the config's audit-key), read as it started */
  auditKey?: PinnedAuditKey;
  /** writes to the terminal clipboard (OSC 52); injected so tests can see it */
  clipboard(text: string): void;
  /** stops polling and abandons the requests in flight (quitting waits for no appliance) */
  close(): Promise<void>;
}

/**
 * What the config file (issue 29 §1) gives the dashboard's `:` commands. Each part is optional:
 * without it the command says what is missing.
 */
export interface DashboardSettings {
  /** the configured appliances' names, for `:appliance NAME` */
  appliances?: readonly string[];
  /** connects to a configured appliance instead of this one */
  switchAppliance?(name: string): void | Promise<void>;
  /** `:columns save`: keeps a screen's columns (headers, in order) in the config */
  saveColumns?(screen: string, columns: string[]): void | Promise<void>;
  /** `:sort save`: keeps a screen's order ("Name desc") in the config */
  saveSort?(screen: string, sort: string): void | Promise<void>;
}

export interface DashboardOptions {
  client: ApiClient;
  /** the client's token, or what gives it (the stored sign-in) */
  token: string | (() => Promise<string>);
  /** the token comes from the stored sign-in: when it expires, a new device sign-in is offered */
  session?: SignInSetup;
  screens: AnyScreen[];
  refreshMs: number;
  readOnly?: boolean;
  clipboard?: (text: string) => void;
  /** writes the config's `notify` (BEL, OSC 9) to the terminal; injected so tests can see it */
  notice?: (sequence: string) => void;
  initialScreen?: string;
  display?: DisplaySettings;
  settings?: DashboardSettings;
  exportFolder?: string;
  /** the audit key pinned for this appliance: the chain checks and V trust it, not the keys it serves */
  auditKey?: PinnedAuditKey;
  /**
   * keeps the evidence of a fork the kept checkpoint's consistency proof found (both checkpoints as signed)
   * and returns the file: the CLI's forks folder in its XDG state, as its own checks keep them
   */
  writeFork?: (evidence: string, foundAt: string) => Promise<string>;
}

const NO_SETTINGS: DisplaySettings = { theme: 'dark', aliases: {}, keys: {}, screenPrefs: {} };

const osc52 = (text: string) => `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;

export function createDashboard(o: DashboardOptions): DashboardDeps {
  validateScreens(o.screens);
  const session = createSessionStore({ forcedReadOnly: o.readOnly });
  const resources = createResourceStore();
  const first =
    o.initialScreen && o.screens.some((s) => s.name === o.initialScreen) ? o.initialScreen : o.screens[0].name;
  const ui = createUiStore(first);
  const display = o.display ?? NO_SETTINGS;
  for (const [name, sort] of defaultSorts(display.screenPrefs)) patchScreen(ui, name, { sort });
  const screens = withChosenColumns(o.screens, display.screenPrefs);
  const dialogs = createDialogStore();
  let signIn: SignIn | undefined;
  const poller = new Poller({
    client: o.client,
    resources,
    session,
    token: o.token,
    refreshMs: o.refreshMs,
    onAuthFailure: o.session ? (err) => signIn?.handle(err) ?? false : undefined,
  });

  // Polling follows the visible screen and its state (filters, range, page): one place. With the
  // config's notify on, the overview's board is polled too while another screen is shown.
  const board = display.notify && display.notify !== 'off' ? boardScreen(screens) : undefined;
  let wanted: ScreenResources | null = null;
  let wantedKeys = '';
  const syncWanted = () => {
    const s = ui.getState();
    const screen = screens.find((x) => x.name === s.screen) ?? screens[0];
    const now = screenResources(screen, screenState(s, screen.name));
    if (now === wanted) return;
    wanted = now;
    const keys = now.keys.join('|');
    if (keys === wantedKeys) return;
    wantedKeys = keys;
    const background = board && screen !== board ? boardRequests(board, ui) : [];
    const extra = background.filter((r) => !now.keys.includes(resourceKey(r)));
    poller.setWanted(extra.length ? [...now.requests, ...extra] : now.requests);
  };
  syncWanted();
  const unsubscribe = ui.subscribe(syncWanted);
  const unwatch =
    board && display.notify && display.notify !== 'off'
      ? watchForCrit({
          kind: display.notify,
          board,
          resources,
          ui,
          auditKey: o.auditKey,
          write: o.notice ?? ((sequence) => process.stdout.write(sequence)),
        })
      : () => undefined;
  // the audit chain's kept checkpoint moves on by consistency proofs as checkpoint lists arrive
  const unfollow = followKeptCheckpoint({
    resources,
    client: o.client,
    ...(o.auditKey ? { auditKey: o.auditKey } : {}),
    ...(o.writeFork ? { writeFork: o.writeFork } : {}),
  });
  const actionLog = createActionLog();
  const unobserve = o.client.observe((e) => recordExchange(actionLog, e));

  const deps: DashboardDeps = {
    client: o.client,
    session,
    resources,
    ui,
    dialogs,
    poller,
    screens,
    display,
    keyOverrides: keyOverridesOf(display.keys),
    settings: o.settings ?? {},
    actionLog,
    // the config file's export-folder, else the caller's, else where the dashboard was started
    exportFolder: display.exportFolder ?? o.exportFolder ?? process.cwd(),
    ...(o.auditKey ? { auditKey: o.auditKey } : {}),
    clipboard: o.clipboard ?? ((text) => process.stdout.write(osc52(text))),
    async close() {
      unsubscribe();
      unwatch();
      unfollow();
      unobserve();
      poller.stop();
      await o.client.abandon();
    },
  };
  if (o.session) deps.signIn = signIn = new SignIn(deps, o.session);
  return deps;
}

export const DepsContext = createContext<DashboardDeps | null>(null);

export function useDeps(): DashboardDeps {
  const d = useContext(DepsContext);
  if (!d) throw new Error('useDeps outside the dashboard');
  return d;
}
