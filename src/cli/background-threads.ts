import { readdirSync, readFileSync } from 'node:fs';

/**
 * The dashboard draws on the main thread; V8 compiles and collects garbage on its own background
 * threads, for thousands of keys after start. On a host with few cores those threads, woken in the
 * middle of a key, take the main thread's core and the key waits for it (test/bench/RESULTS.md,
 * twelfth and thirteenth rounds). Kept off one CPU, they leave the main thread a core of its own
 * to wake on, at their full priority: lowering them instead stalls the main thread on a busy host,
 * when it has to wait for them (the end of a concurrent GC waits for its workers).
 */

/**
 * Every thread of this process but the main one, on Linux: taken before the first asynchronous
 * file operation, these are Node's V8 platform threads (the compiler, the garbage collector, their
 * timer) and its signal thread. libuv's pool, which writes downloads, starts later, from the main
 * thread, and keeps the main thread's CPUs. Empty where /proc is not there.
 */
export function backgroundThreads(taskDir = '/proc/self/task', mainTid = process.pid): number[] {
  try {
    return readdirSync(taskDir)
      .map(Number)
      .filter((tid) => Number.isInteger(tid) && tid !== mainTid);
  } catch {
    return [];
  }
}

/** The CPUs of a Linux CPU list ("0-3,8,10-11"); empty for anything else. */
export function parseCpuList(list: string): number[] {
  const cpus: number[] = [];
  for (const part of list.trim().split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) return [];
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from || to - from > 4096) return [];
    for (let c = from; c <= to; c++) cpus.push(c);
  }
  return cpus;
}

/** The CPUs this process may run on (Cpus_allowed_list); empty where /proc is not there. */
export function allowedCpus(statusFile = '/proc/self/status'): number[] {
  try {
    const m = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(statusFile, 'utf8'));
    return m ? parseCpuList(m[1]!) : [];
  } catch {
    return [];
  }
}

/** The CPUs left to the background threads: all the allowed ones but the first; none with fewer than two. */
export function backgroundCpus(allowed: number[]): number[] {
  return allowed.length < 2 ? [] : allowed.slice(1);
}

/**
 * Confines `tids` to `cpus` with util-linux's taskset (Node has no call for it). Best effort:
 * resolves true when every thread was moved, false when there was nothing to do, taskset is
 * missing or refused; never rejects.
 */
export function confineThreads(tids: number[], cpus: number[]): Promise<boolean> {
  if (tids.length === 0 || cpus.length === 0) return Promise.resolve(false);
  const script = 'list=$1; shift; for t in "$@"; do taskset -p -c "$list" "$t" >/dev/null || exit 1; done';
  return new Promise((resolve) => {
    try {
      // node:child_process is loaded here, a second after the first frame, not before it (about 1 ms
      // on Node 20 with net and streams already loaded)
      const { spawn } = process.getBuiltinModule('node:child_process') as typeof import('node:child_process');
      const child = spawn('/bin/sh', ['-c', script, 'sh', cpus.join(','), ...tids.map(String)], { stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('exit', (code) => resolve(code === 0));
    } catch {
      resolve(false);
    }
  });
}
