// Run by background-threads.test.ts in its own process: demotes this process's background
// threads, starts a thread afterwards, and prints every thread's scheduling policy and nice value.
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { backgroundThreads, demoteThreads } from '../../src/cli/background-threads.js';

// without chrt on the PATH, the nice fallback
if (process.argv[2] === 'no-chrt') process.env.PATH = '/nonexistent';
const background = backgroundThreads();
const demotion = await demoteThreads(background);
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
await once(worker, 'online');
const sched = (tid: number) => {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // stat's fields 19 (nice) and 41 (policy), counted from the state, field 3
  return { tid, nice: Number(fields[16]), policy: Number(fields[38]) };
};
const threads = readdirSync('/proc/self/task').map(Number).map(sched);
process.stdout.write(JSON.stringify({ demotion, main: process.pid, background, threads }));
await worker.terminate();
