import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/contract/index.js';
import { jobsScreen } from '../../screens/jobs.js';
import { sortRows } from '../../src/dashboard/kit/sort.js';

/** A job as the screen lists it (with its connector's and source's names). */
const job = (job_id: string, ms: number | null) =>
  ({
    job_id,
    connector_id: 'conn_a',
    source_id: 'src_a',
    state: ms === null ? 'running' : 'succeeded',
    created_at: '2026-11-29T10:00:00.000Z',
    started_at: '2026-11-29T10:00:00.000Z',
    finished_at: ms === null ? null : new Date(Date.parse('2026-11-29T10:00:00.000Z') + ms).toISOString(),
    items: 1,
    error: null,
    connector_name: 'A',
    source_name: 'a',
  }) as Job & { connector_name: string | null; source_name: string | null };

describe('jobs screen', () => {
  it('sorts Took by the time taken, not by its text; a job still running last', () => {
    const took = jobsScreen.list!.columns.find((c) => c.header === 'Took')!;
    const rows = [job('slow', 1_200), job('quick', 270), job('running', null), job('slowest', 90_000), job('q2', 9)];
    expect(rows.map((r) => took.value(r))).toEqual(['1.2 s', '270 ms', '–', '1.5 min', '9 ms']);
    expect(sortRows(rows, took, false).map((r) => r.job_id)).toEqual(['q2', 'quick', 'slow', 'slowest', 'running']);
    expect(sortRows(rows, took, true).map((r) => r.job_id)).toEqual(['slowest', 'slow', 'quick', 'q2', 'running']);
  });
});
