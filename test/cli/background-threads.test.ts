import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  allowedCpus,
  backgroundCpus,
  backgroundThreads,
  confineThreads,
  parseCpuList,
} from '../../src/cli/background-threads.js';

interface Report {
  confined: boolean;
  cpus: number[];
  main: number;
  background: number[];
  threads: { tid: number; cpus: string }[];
}

/** a fresh node process confines its own background threads and reports every thread's CPUs */
function confineInChild(mode: 'taskset' | 'no-taskset'): Report {
  const child = join(import.meta.dirname, 'background-threads-child.ts');
  const out = execFileSync(process.execPath, ['--import', 'tsx', child, mode], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(out) as Report;
}

const mine = allowedCpus();

describe.runIf(process.platform === 'linux' && mine.length >= 2)(
  'background threads leave the main thread a CPU',
  () => {
    const all = mine.join(',');
    const asList = (s: string) => parseCpuList(s).join(',');

    it('keeps every thread but the main one off the first CPU; the main thread and threads started later keep them all', () => {
      const r = confineInChild('taskset');
      expect(r.confined).toBe(true);
      expect(r.cpus).toEqual(mine.slice(1));
      expect(r.background).not.toContain(r.main);
      const main = r.threads.find((t) => t.tid === r.main)!;
      const confined = r.threads.filter((t) => r.background.includes(t.tid));
      const later = r.threads.filter((t) => t.tid !== r.main && !r.background.includes(t.tid));
      // V8's platform threads at least
      expect(confined.length).toBeGreaterThanOrEqual(2);
      expect(confined.map((t) => asList(t.cpus))).toEqual(confined.map(() => mine.slice(1).join(',')));
      expect(asList(main.cpus)).toBe(all);
      // the worker started afterwards, from the main thread
      expect(later.length).toBeGreaterThanOrEqual(1);
      expect(later.map((t) => asList(t.cpus))).toEqual(later.map(() => all));
    });

    it('leaves every thread where it was when taskset cannot be run', () => {
      const r = confineInChild('no-taskset');
      expect(r.confined).toBe(false);
      expect(r.threads.map((t) => asList(t.cpus))).toEqual(r.threads.map(() => all));
    });
  },
);

describe('which threads, which CPUs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'aa-task-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads Linux CPU lists, and nothing from anything else', () => {
    expect(parseCpuList('0-1')).toEqual([0, 1]);
    expect(parseCpuList('0-3,8,10-11\n')).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(parseCpuList('5')).toEqual([5]);
    for (const bad of ['', 'ff', '3-1', '0,,1', '0-1 2']) expect(parseCpuList(bad)).toEqual([]);
  });

  it('finds the allowed CPUs in a status file; none without one', () => {
    const status = join(dir, 'status');
    writeFileSync(status, 'Name:\tnode\nCpus_allowed:\t0000000f\nCpus_allowed_list:\t0-2,6\nMems_allowed_list:\t0\n');
    expect(allowedCpus(status)).toEqual([0, 1, 2, 6]);
    expect(allowedCpus(join(dir, 'missing'))).toEqual([]);
  });

  it('gives the background threads all the allowed CPUs but the first, and none on a single CPU', () => {
    expect(backgroundCpus([0, 1])).toEqual([1]);
    expect(backgroundCpus([2, 3, 4])).toEqual([3, 4]);
    expect(backgroundCpus([0])).toEqual([]);
    expect(backgroundCpus([])).toEqual([]);
  });

  it('finds no threads without /proc, and leaves out the main thread and anything that is not a thread id', async () => {
    expect(backgroundThreads('/nonexistent/task')).toEqual([]);
    const task = join(dir, 'task');
    for (const name of ['100', '101', '102', 'x']) mkdirSync(join(task, name), { recursive: true });
    expect(backgroundThreads(task, 100).sort()).toEqual([101, 102]);
  });

  it('does nothing with no threads or no CPUs', async () => {
    await expect(confineThreads([], [1])).resolves.toBe(false);
    await expect(confineThreads([process.pid], [])).resolves.toBe(false);
  });
});
