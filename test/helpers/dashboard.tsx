import { EventEmitter } from 'node:events';
import React from 'react';
import { render } from 'ink';
import type { Role } from '../../src/contract/index.js';
import { ApiClient } from '../../src/client/api-client.js';
import { createDashboard, type DashboardDeps, type DashboardSettings } from '../../src/dashboard/shell/deps.js';
import { App } from '../../src/dashboard/shell/App.js';
import { ScreenReaderApp } from '../../src/dashboard/shell/screen-reader/Announcer.js';
import { KeyStdin, PASTE_END, PASTE_START } from '../../src/dashboard/terminal/key-stdin.js';
import type { AnyScreen } from '../../src/dashboard/kit/screen-api.js';
import type { SignInSetup } from '../../src/dashboard/shell/sign-in.js';
import { screens as allScreens } from '../../screens/index.js';
import type { TestServer } from './server.js';
import type { PinnedAuditKey } from '../../src/audit-chain/keys-file.js';
import type { DisplaySettings } from '../../src/config/display-settings.js';

/** A terminal of a given size, like ink-testing-library's, that can also be resized. */
class FakeStdout extends EventEmitter {
  frames: string[] = [];
  written = 0;
  isTTY = true;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (frame: string) => {
    this.written++;
    this.frames.push(frame);
    return true;
  };
  lastFrame = () => this.frames[this.frames.length - 1] ?? '';
}

class FakeStdin extends EventEmitter {
  isTTY = true;
  private data: string | null = null;
  write = (data: string) => {
    this.data = data;
    this.emit('readable');
    this.emit('data', data);
  };
  read = () => {
    const d = this.data;
    this.data = null;
    return d;
  };
  /** what Ink last asked of the terminal, and how often it turned raw mode off */
  rawMode = false;
  rawModeOffs = 0;
  setEncoding() {}
  setRawMode(on: boolean) {
    this.rawMode = on;
    if (!on) this.rawModeOffs++;
  }
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

const KEYS: Record<string, string> = {
  enter: '\r',
  esc: '\x1b',
  tab: '\t',
  'shift-tab': '\x1b[Z',
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  pgup: '\x1b[5~',
  pgdn: '\x1b[6~',
  home: '\x1b[H',
  end: '\x1b[F',
  backspace: '\x7f',
  space: ' ',
};

export interface DashboardHarness {
  deps: DashboardDeps;
  /** OSC 52 copies the dashboard made */
  clipboard: string[];
  /** what the config's notify wrote to the terminal (BEL, OSC 9) */
  notices: string[];
  /** key names (enter, esc, tab, shift-tab, up, down, left, right, pgup, pgdn, home, end, backspace, space) or single characters */
  press(...keys: string[]): Promise<void>;
  /** types text one character at a time */
  type(text: string): Promise<void>;
  /** what a terminal sends, in one read (with keyStdin, split as the real terminal's input is) */
  write(raw: string): Promise<void>;
  /** a bracketed paste, in one read (needs keyStdin to arrive as a paste) */
  paste(text: string): Promise<void>;
  frame(): string;
  /** screen-reader mode: the lines said so far (frames are still drawn, to the fake terminal) */
  spoken: string[];
  /** every frame written so far, joined (to assert something was never shown) */
  allFrames(): string;
  /** drops the frames recorded so far (a real terminal keeps no history of them) */
  forgetFrames(): void;
  /** frames written so far (counting forgotten ones): wait for it to grow to see a render */
  frameCount(): number;
  /** the error the app exited with (its top-level boundary), or null while it runs */
  crashed(): Error | null;
  /** true once the app has exited (quit, or crashed) */
  exited(): boolean;
  /** whether the terminal is in raw mode now, and how many times Ink has turned it off */
  rawMode(): { on: boolean; offs: number };
  waitForText(text: string | RegExp, timeoutMs?: number): Promise<string>;
  waitFor(pred: (frame: string) => boolean, what?: string, timeoutMs?: number): Promise<string>;
  resize(columns: number, rows: number): Promise<void>;
  unmount(): Promise<void>;
}

export interface DashboardOptions {
  /** the server whose tokens and URL are used; optional when url and token are given */
  server?: TestServer;
  role?: Role;
  /** a token other than the role's (e.g. a revoked one), or what gives one (the stored sign-in) */
  token?: string | (() => Promise<string>);
  /** the token comes from this stored sign-in: a new device sign-in is offered when it expires */
  session?: SignInSetup;
  url?: string;
  refreshMs?: number;
  readOnly?: boolean;
  screen?: string;
  screens?: AnyScreen[];
  columns?: number;
  rows?: number;
  /** client idle timeouts (default 5000) and whole-answer deadline */
  timeoutMs?: number;
  deadlineMs?: number;
  maxBytes?: number;
  /** PEM CA to trust (--ca-file) */
  ca?: string | Buffer;
  /** what the config file would give the `:` commands (appliances, saving columns) */
  settings?: DashboardSettings;
  /** input through the CLI's KeyStdin (src/dashboard/terminal/key-stdin.ts), as in a real terminal */
  keyStdin?: boolean;
  /** the config file's display settings (src/cli/dashboard-settings.ts) */
  display?: DisplaySettings;
  /** the screen-reader mode (src/dashboard/terminal/screen-reader/): what it says is in `spoken` */
  screenReader?: boolean;
  /** where an export's file field starts (default the working directory) */
  exportFolder?: string;
  /** the first answers read as sent, as the CLI's start does (ApiClient.deferChecks), until deps.poller.firstFrameDrawn() */
  deferChecks?: boolean;
  /** the audit key pinned for the appliance (--audit-key, the config's audit-key), as read */
  auditKey?: PinnedAuditKey;
  /** keeps a fork's evidence (the CLI gives its forks folder), returns the file */
  writeFork?: (evidence: string, foundAt: string) => Promise<string>;
}

const tick = () => new Promise<void>((r) => setImmediate(r));
/** Time between keys for a newly opened input to mount (KeyStdin itself waits one event-loop turn). */
const keyGap = () => new Promise<void>((r) => setTimeout(r, 4));

/** Renders the real shell against a running test server, with keys, frames and waits. */
export function renderDashboard(o: DashboardOptions): DashboardHarness {
  const token = o.token ?? o.server?.tokens[o.role ?? 'it_admin'];
  const url = o.url ?? o.server?.url;
  if (!token || !url) throw new Error('renderDashboard needs a server, or a url and a token');
  const client = new ApiClient({
    url,
    token,
    timeoutMs: o.timeoutMs ?? 5000,
    deadlineMs: o.deadlineMs,
    maxBytes: o.maxBytes,
    ca: o.ca,
  });
  if (o.deferChecks) client.deferChecks(true);
  const clipboard: string[] = [];
  const notices: string[] = [];
  const deps = createDashboard({
    client,
    token,
    session: o.session,
    screens: o.screens ?? allScreens,
    refreshMs: o.refreshMs ?? 200,
    readOnly: o.readOnly,
    initialScreen: o.screen,
    display: o.display,
    exportFolder: o.exportFolder,
    clipboard: (text) => clipboard.push(text),
    notice: (sequence) => notices.push(sequence),
    settings: o.settings,
    ...(o.auditKey ? { auditKey: o.auditKey } : {}),
    ...(o.writeFork ? { writeFork: o.writeFork } : {}),
  });
  const stdout = new FakeStdout(o.columns ?? 120, o.rows ?? 32);
  const stdin = new FakeStdin();
  const stderr = new FakeStdout(120, 32);
  const spoken: string[] = [];
  const app = o.screenReader ? <ScreenReaderApp deps={deps} say={(line) => spoken.push(line)} /> : <App deps={deps} />;
  const instance = render(app, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stdin: (o.keyStdin ? new KeyStdin(stdin as unknown as NodeJS.ReadStream) : stdin) as unknown as NodeJS.ReadStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    debug: true,
    exitOnCtrlC: false,
    patchConsole: false,
  });
  let crash: Error | null = null;
  let exited = false;
  instance.waitUntilExit().then(
    () => {
      exited = true;
    },
    (err: Error) => {
      exited = true;
      crash = err;
    },
  );

  const waitFor = async (pred: (f: string) => boolean, what = 'condition', timeoutMs = 5000) => {
    // the monotonic clock: a test that sets Date (vi.setSystemTime) still times out
    const end = performance.now() + timeoutMs;
    for (;;) {
      const f = stdout.lastFrame();
      if (pred(f)) return f;
      if (performance.now() > end) throw new Error(`timed out waiting for ${what}; last frame:\n${f}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  return {
    deps,
    clipboard,
    notices,
    spoken,
    async press(...keys) {
      for (const k of keys) {
        const seq = KEYS[k] ?? (k.length === 1 ? k : undefined);
        if (seq === undefined) throw new Error(`unknown key ${k}; use type() for text`);
        stdin.write(seq);
        await keyGap();
      }
    },
    async type(text) {
      for (const ch of text) {
        stdin.write(ch);
        await keyGap();
      }
    },
    async write(raw) {
      stdin.write(raw);
      await keyGap();
    },
    async paste(text) {
      stdin.write(PASTE_START + text + PASTE_END);
      await keyGap();
    },
    frame: () => stdout.lastFrame(),
    allFrames: () => stdout.frames.join('\n'),
    forgetFrames: () => {
      stdout.frames.length = 0;
    },
    crashed: () => crash,
    exited: () => exited,
    rawMode: () => ({ on: stdin.rawMode, offs: stdin.rawModeOffs }),
    frameCount: () => stdout.written,
    waitForText: (text, timeoutMs) =>
      waitFor(
        (f) => (typeof text === 'string' ? f.includes(text) : text.test(f)),
        JSON.stringify(String(text)),
        timeoutMs,
      ),
    waitFor,
    async resize(columns, rows) {
      stdout.columns = columns;
      stdout.rows = rows;
      stdout.emit('resize');
      await tick();
    },
    async unmount() {
      instance.unmount();
      await deps.close();
    },
  };
}

/**
 * The age the header shows ("updated N s ago"; 0 for "updated just now", data confirmed within the
 * last refresh interval), redrawn by the dashboard's own clock when its words change; null without data.
 */
function headerAge(frame: string): number | null {
  const m = /updated (?:(\d+) s ago|just now)/.exec(frame.split('\n').slice(0, 2).join('\n'));
  return m ? Number(m[1] ?? 0) : null;
}

/**
 * Until the dashboard's own clock has moved on by more than `seconds` s: the age in its header has
 * grown by `seconds` + 1. For a check that something does NOT happen (no poll while paused, no
 * device-code poll after Esc): a timer the dashboard had left would have fired by then, and the
 * wait ends on the dashboard's own frames rather than on a guessed time.
 */
export async function dashboardClockPassed(d: DashboardHarness, seconds = 1): Promise<void> {
  const from = headerAge(d.frame());
  if (from === null) throw new Error(`the header shows no age to count from:\n${d.frame()}`);
  await d.waitFor((f) => (headerAge(f) ?? -1) >= from + seconds + 1, `the header's age at ${from + seconds + 1} s`);
}

/**
 * For "pressing it sent nothing": asks for a refresh (r's) and waits until one of its requests has
 * been answered. A request the dashboard had made before it went out first, so the server's tables
 * read after this show whether anything reached them.
 */
export async function afterARefresh(d: DashboardHarness): Promise<void> {
  let answered = false;
  const off = d.deps.client.observe(() => (answered = true));
  try {
    d.deps.poller.refreshNow();
    await d.waitFor(() => answered, 'a refresh answered');
  } finally {
    off();
  }
}
