// Run by background-threads.test.ts in its own process: confines this process's background
// threads, starts a thread afterwards, and prints the CPUs every thread may run on.
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { allowedCpus, backgroundCpus, backgroundThreads, confineThreads } from '../../src/cli/background-threads.js';

// without taskset on the PATH
if (process.argv[2] === 'no-taskset') process.env.PATH = '/nonexistent';
const background = backgroundThreads();
const cpus = backgroundCpus(allowedCpus());
const confined = await confineThreads(background, cpus);
const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
await once(worker, 'online');
const allowed = (tid: number) => allowedCpus(`/proc/self/task/${tid}/status`).join(',');
const threads = readdirSync('/proc/self/task')
  .map(Number)
  .map((tid) => ({ tid, cpus: allowed(tid) }));
process.stdout.write(JSON.stringify({ confined, cpus, main: process.pid, background, threads }));
await worker.terminate();
