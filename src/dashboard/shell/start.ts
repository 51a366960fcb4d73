import { ApiClient } from '../../client/api-client.js';
import type { TokenSource } from '../../client/bearer-token.js';
import { screens } from '../../../screens/index.js';
import { createDashboard, type DashboardSettings } from './deps.js';
import type { SignInSetup } from './sign-in.js';
import { runDashboard } from './run.js';
import { yogaReady } from '../terminal/yoga-ready.js';
import { themeStore, type ThemeName } from '../kit/theme.js';
import type { PinnedAuditKey } from '../../audit-chain/keys-file.js';
import type { DisplaySettings } from '../../config/display-settings.js';

export { TERMINAL_HUNG_UP } from './run.js';

interface StartOptions {
  url: string;
  token: TokenSource;
  ca?: Buffer;
  /** the audit key pinned for this appliance (--audit-key, the config's audit-key) */
  auditKey?: PinnedAuditKey;
  /** the stored sign-in the token came from, renewed and asked again through it */
  session?: SignInSetup;
  refreshMs: number;
  readOnly: boolean;
  initialScreen?: string;
  /** the config file's theme, export folder, aliases, key bindings, columns and sorts */
  display?: DisplaySettings;
  /** lines for a screen reader instead of frames (src/dashboard/terminal/screen-reader/) */
  screenReader?: boolean;
  theme?: ThemeName;
  /** from the config file: its appliances and where `:columns save` writes */
  settings?: DashboardSettings;
  /** called once, after the first frame is on screen */
  onFirstFrame?: () => void;
  /** keeps a fork's evidence and returns the file (the CLI's forks folder) */
  writeFork?: (evidence: string, foundAt: string) => Promise<string>;
}

/** Longest wait for the first answers before the first frame (then it shows "Loading…"). */
const FIRST_FRAME_WAIT_MS = 300;

/**
 * The dashboard itself, from connecting to quitting; its exit code. The entry of the dashboard's
 * bundle (dist/dashboard-HASH.cjs, loaded with a code cache by src/cli/dashboard.ts). A URL the
 * client refuses throws an error named UsageError.
 */
export async function startDashboard(o: StartOptions): Promise<number> {
  let client: ApiClient;
  try {
    client = new ApiClient({ url: o.url, token: o.token, ca: o.ca });
  } catch (err) {
    throw Object.assign(new Error((err as Error).message), { name: 'UsageError' });
  }
  if (o.theme) themeStore.setState({ name: o.theme });
  const deps = createDashboard({
    client,
    token: o.token,
    session: o.session,
    screens,
    refreshMs: o.refreshMs,
    readOnly: o.readOnly,
    initialScreen: o.initialScreen,
    display: o.display,
    settings: o.settings,
    ...(o.auditKey ? { auditKey: o.auditKey } : {}),
    ...(o.writeFork ? { writeFork: o.writeFork } : {}),
  });
  // The first round of polls goes out before the first frame, which then shows the data
  // instead of "Loading…" (one cold render less: docs/performance.md). A board that draws what
  // has arrived (the overview) asks for its first resource, waits for it only, and asks for the
  // others once that frame is drawn.
  const first = deps.screens.find((s) => s.name === deps.ui.getState().screen);
  const drawsWhatArrived = Boolean(first?.list?.rowsFrom);
  // That frame shows its answers as sent, sanitized; their contract check, which builds zod's
  // schemas (a measurable part of a start: docs/performance.md), runs on reading them again right after it.
  client.deferChecks(true);
  deps.poller.start(drawsWhatArrived);
  await Promise.all([yogaReady, deps.poller.firstRound(FIRST_FRAME_WAIT_MS, drawsWhatArrived)]);
  const onFirstFrame = () => {
    deps.poller.firstFrameDrawn();
    o.onFirstFrame?.();
  };
  return runDashboard(deps, onFirstFrame, o.screenReader);
}
