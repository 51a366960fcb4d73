import { EventEmitter } from 'node:events';
import React from 'react';
import { render } from 'ink';
import { App } from '../../../src/dashboard/shell/App.js';
import type { DashboardDeps } from '../../../src/dashboard/shell/deps.js';
import { KeyStdin } from '../../../src/dashboard/terminal/key-stdin.js';
import { FRAME_OPTIONS } from '../../../src/dashboard/shell/run.js';
import { stripAnsi } from './dashboard-pty.js';
import { nowMs } from './stats.js';
import { disturbance, othersBusy, schedMark, type Disturbance, type SchedMark } from './thread-sched.js';

/**
 * The real dashboard App rendered by Ink with the CLI's own frame options (FRAME_OPTIONS: maxFps,
 * incremental rendering) into an in-memory terminal, keys going through the CLI's KeyStdin. Every
 * frame Ink renders calls onRender (Ink's render option), which timestamps it; `press` measures
 * from handing a key to stdin to the frame that follows it, and tells whether the OS or the
 * hypervisor took the core from the thread meanwhile (thread-sched.ts).
 */

class FakeTty extends EventEmitter {
  isTTY = true;
  writes = 0;
  lastFrame = '';
  /** most lines any written frame had */
  tallest = 0;
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write = (data: string) => {
    this.writes++;
    const text = stripAnsi(String(data));
    if (text.trim()) {
      this.lastFrame = text;
      this.tallest = Math.max(this.tallest, text.replace(/\n$/, '').split('\n').length);
    }
    return true;
  };
}

/** What KeyStdin wraps: the terminal's raw stdin. */
class FakeRawStdin extends EventEmitter {
  isTTY = true;
  setEncoding() {}
  setRawMode() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
}

export interface KeyTiming {
  ms: number;
  /** null on Linux when the thread kept its core throughout; undefined where that is unknown */
  disturbed: Disturbance | undefined;
  /** the process's other threads (V8's workers) ran 1 ms or more meanwhile */
  othersBusy?: boolean;
}

export interface InkHarness {
  stdout: FakeTty;
  /** frames rendered so far */
  frames(): number;
  /**
   * from writing `key` to the next rendered frame; null when no frame came within `waitMs`. With
   * `sentAt` (nowMs() of another thread, key-sender.ts), from then, and without reading /proc.
   */
  press(key: string, waitMs?: number, sentAt?: number): Promise<KeyTiming | null>;
  /** waits until the last frame contains `text` */
  waitForText(text: string, timeoutMs?: number): Promise<void>;
  /** Ink's own measure of its last render (renderTime, ms): building the output from the tree */
  lastRenderTime(): number;
  unmount(): void;
}

export function renderApp(deps: DashboardDeps, columns = 120, rows = 40): InkHarness {
  const stdout = new FakeTty(columns, rows);
  const raw = new FakeRawStdin();
  let frames = 0;
  let renderTime = 0;
  let waiter: ((t: number, mark: SchedMark | null) => void) | null = null;
  const instance = render(<App deps={deps} />, {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: new FakeTty(columns, rows) as unknown as NodeJS.WriteStream,
    stdin: new KeyStdin(raw as unknown as NodeJS.ReadStream) as unknown as NodeJS.ReadStream,
    exitOnCtrlC: false,
    patchConsole: false,
    ...FRAME_OPTIONS,
    onRender: ({ renderTime: rt }) => {
      const t = nowMs();
      frames++;
      renderTime = rt;
      const w = waiter;
      waiter = null;
      // read after the timestamp: reading /proc must not count as the frame's time
      if (w) w(t, schedMark());
    },
  });
  return {
    stdout,
    frames: () => frames,
    async press(key, waitMs = 1000, sentAt) {
      const next = new Promise<{ t: number; mark: SchedMark | null } | null>((resolve) => {
        const timer = setTimeout(() => {
          waiter = null;
          resolve(null);
        }, waitMs);
        waiter = (t, mark) => {
          clearTimeout(timer);
          resolve({ t, mark });
        };
      });
      const mark0 = sentAt === undefined ? schedMark() : null;
      const t0 = sentAt ?? nowMs();
      raw.emit('data', key);
      const end = await next;
      if (end === null) return null;
      if (!mark0 || !end.mark) return { ms: end.t - t0, disturbed: undefined };
      return { ms: end.t - t0, disturbed: disturbance(mark0, end.mark), othersBusy: othersBusy(mark0, end.mark) };
    },
    async waitForText(text, timeoutMs = 30_000) {
      const end = Date.now() + timeoutMs;
      while (!stdout.lastFrame.includes(text)) {
        if (Date.now() > end)
          throw new Error(`"${text}" not on screen after ${timeoutMs} ms; last frame:\n${stdout.lastFrame}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    lastRenderTime: () => renderTime,
    unmount: () => instance.unmount(),
  };
}
