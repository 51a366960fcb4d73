import { readdirSync, readFileSync } from 'node:fs';

/**
 * Whether the OS kept this process's main thread (the one that draws) on its core between two
 * moments, from Linux's /proc: a key's time to frame counts the dashboard's own work only when
 * the thread was neither preempted (an involuntary context switch, time in the run queue waiting
 * for a core) nor descheduled by the hypervisor (steal time of the virtual CPU it ran on). The
 * kernel reports steal in 10 ms units, so a short steal can go unseen: keys counted as kept may
 * still hold some, which errs towards a higher figure, never a lower one. A mark also holds how
 * long the process's other threads have run, to tell when they were busy during a key.
 */
export interface SchedMark {
  /** ns the thread spent runnable in a run queue, waiting for a core (schedstat, 2nd field) */
  runDelayNs: number;
  involuntary: number;
  /** the CPU the thread last ran on, and that CPU's steal time so far (clock ticks) */
  cpu: number;
  steal: number;
  /** ns every other thread of this process (V8's compiler and GC workers among them) has run */
  othersRunNs: number;
}

const TASKS = '/proc/self/task';
const TASK = `${TASKS}/${process.pid}`;

/** Every thread of this process but the main one (V8's platform workers among them). */
const otherThreads = () =>
  readdirSync(TASKS)
    .map(Number)
    .filter((tid) => Number.isInteger(tid) && tid !== process.pid);

function read(): SchedMark {
  const runDelayNs = Number(readFileSync(`${TASK}/schedstat`, 'utf8').split(' ')[1]);
  const involuntary = Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`${TASK}/status`, 'utf8'))?.[1]);
  // stat's fields after the command name (which may hold spaces) start at field 3: processor is field 39
  const stat = readFileSync(`${TASK}/stat`, 'utf8');
  const cpu = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[36]);
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${cpu} `));
  const steal = Number(line?.trim().split(/\s+/)[8]);
  let othersRunNs = 0;
  for (const tid of otherThreads()) {
    try {
      othersRunNs += Number(readFileSync(`${TASKS}/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended: its time leaves the sum, so that key errs towards "not busy"
    }
  }
  return { runDelayNs, involuntary, cpu, steal, othersRunNs };
}

let supported: boolean | undefined;

/** A reading now; null where /proc does not offer it (not Linux). */
export function schedMark(): SchedMark | null {
  if (supported === false) return null;
  try {
    const m = read();
    supported = Object.values(m).every(Number.isFinite);
    return supported ? m : null;
  } catch {
    supported = false;
    return null;
  }
}

export type Disturbance = 'preempted' | 'stolen' | null;

/** The process's other threads ran 1 ms or more between `a` and `b` (on either core). */
export const othersBusy = (a: SchedMark, b: SchedMark) => b.othersRunNs - a.othersRunNs >= 1e6;

/** What took the core from the thread between `a` and `b`, or null when nothing did. */
export function disturbance(a: SchedMark, b: SchedMark): Disturbance {
  if (b.involuntary > a.involuntary || b.runDelayNs > a.runDelayNs) return 'preempted';
  if (b.cpu !== a.cpu) return 'preempted'; // it moved: it was off its core at some point
  if (b.steal > a.steal) return 'stolen';
  return null;
}
