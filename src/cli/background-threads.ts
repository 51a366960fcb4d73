import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The dashboard draws on the main thread; V8 compiles and collects garbage on its own background
 * threads. On a host with few cores those threads, woken in the middle of a key, take the main
 * thread's core and the key waits a scheduler tick (4 ms) for it (test/bench/RESULTS.md, twelfth
 * round). Linux lets a process put its own threads under SCHED_IDLE: they then run only when no
 * ordinary thread wants the core, and give it up at once when the main thread wakes. Their work
 * still gets done, between keys.
 */

/**
 * Every thread of this process but the main one, on Linux: taken before the first asynchronous
 * file operation, these are Node's V8 platform threads (the compiler, the garbage collector, their
 * timer) and its signal thread. libuv's pool, which writes downloads, starts later, from the main
 * thread, and keeps the main thread's policy. Empty where /proc is not there.
 */
export function backgroundThreads(taskDir = '/proc/self/task', mainTid = process.pid): number[] {
  try {
    return readdirSync(taskDir).map(Number).filter((tid) => Number.isInteger(tid) && tid !== mainTid);
  } catch {
    return [];
  }
}

export type Demotion = 'idle' | 'nice' | 'none';

/**
 * Puts `tids` under SCHED_IDLE with util-linux's chrt (Node has no call for it), or, where chrt
 * is missing or refuses, at nice 19. Best effort: resolves with what was done, never rejects.
 */
export function demoteThreads(tids: number[]): Promise<Demotion> {
  if (tids.length === 0) return Promise.resolve('none');
  const script = 'for t in "$@"; do chrt --idle --pid 0 "$t" || exit 1; done';
  return new Promise((resolve) => {
    let settled = false;
    const settle = (chrtDone: boolean) => {
      if (settled) return;
      settled = true;
      resolve(chrtDone ? 'idle' : niceAll(tids));
    };
    try {
      const child = spawn('/bin/sh', ['-c', script, 'sh', ...tids.map(String)], { stdio: 'ignore' });
      child.once('error', () => settle(false));
      child.once('exit', (code) => settle(code === 0));
    } catch {
      settle(false);
    }
  });
}

function niceAll(tids: number[]): Demotion {
  let done = false;
  for (const tid of tids) {
    try {
      setPriority(tid, 19);
      done = true;
    } catch {
      // the thread ended, or the system refuses: nothing to undo
    }
  }
  return done ? 'nice' : 'none';
}
