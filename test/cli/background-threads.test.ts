import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backgroundThreads, demoteThreads } from '../../src/cli/background-threads.js';

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

interface Report {
  demotion: string;
  main: number;
  background: number[];
  threads: { tid: number; nice: number; policy: number }[];
}

/** a fresh node process demotes its own background threads and reports every thread's scheduling */
function demoteInChild(mode: 'chrt' | 'no-chrt'): Report {
  const child = join(import.meta.dirname, 'background-threads-child.ts');
  const out = execFileSync(process.execPath, ['--import', 'tsx', child, mode], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return JSON.parse(out) as Report;
}

function split(r: Report) {
  const main = r.threads.find((t) => t.tid === r.main)!;
  const demoted = r.threads.filter((t) => r.background.includes(t.tid));
  const later = r.threads.filter((t) => t.tid !== r.main && !r.background.includes(t.tid));
  return { main, demoted, later };
}

describe.runIf(process.platform === 'linux')('background threads yield to the main thread', () => {
  it('puts every thread but the main one under SCHED_IDLE; the main thread and threads started later keep theirs', () => {
    const r = demoteInChild('chrt');
    const { main, demoted, later } = split(r);
    expect(r.demotion).toBe('idle');
    expect(r.background).not.toContain(r.main);
    // V8's platform threads at least
    expect(demoted.length).toBeGreaterThanOrEqual(2);
    expect(demoted.every((t) => t.policy === SCHED_IDLE)).toBe(true);
    expect(main).toMatchObject({ policy: SCHED_OTHER, nice: 0 });
    // the worker started after the demotion
    expect(later.length).toBeGreaterThanOrEqual(1);
    expect(later.every((t) => t.policy === SCHED_OTHER && t.nice === 0)).toBe(true);
  });

  it('falls back to nice 19 where chrt cannot be run', () => {
    const r = demoteInChild('no-chrt');
    const { main, demoted } = split(r);
    expect(r.demotion).toBe('nice');
    expect(demoted.length).toBeGreaterThanOrEqual(2);
    expect(demoted.every((t) => t.policy === SCHED_OTHER && t.nice === 19)).toBe(true);
    expect(main).toMatchObject({ policy: SCHED_OTHER, nice: 0 });
  });
});

describe('where there is nothing to demote', () => {
  it('finds no threads without /proc and does nothing with none', async () => {
    expect(backgroundThreads('/nonexistent/task')).toEqual([]);
    await expect(demoteThreads([])).resolves.toBe('none');
  });

  it('leaves out the main thread and anything that is not a thread id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'aa-task-'));
    try {
      for (const name of ['100', '101', '102', 'x']) mkdirSync(join(dir, name));
      expect(backgroundThreads(dir, 100).sort()).toEqual([101, 102]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
