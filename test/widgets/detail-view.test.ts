import { describe, expect, it } from 'vitest';
import { detailLines } from '../../src/dashboard/widgets/DetailView.js';

describe('detail view', () => {
  it('cuts a long key path in its parents, so that siblings stay apart (a key at 80 columns)', () => {
    const key = {
      name: 'finance-analyst-prod',
      rejected_by_last_hour: { tokens_per_minute: 7, tokens_per_day: 0, requests_per_minute: 1 },
    };
    // the shell gives the view its width less 2: a third of it is the keys' column
    const labels = detailLines(key, 78).map((l) => l.slice(0, 26).trimEnd());
    expect(labels[0]).toBe('name');
    expect(labels.slice(1)).toEqual([
      'rejecte….tokens_per_minute',
      'rejected_b….tokens_per_day',
      'rejec….requests_per_minute',
    ]);
    expect(new Set(labels).size).toBe(labels.length);
    expect(detailLines(key, 78)[1]).toMatch(/tokens_per_minute {3}7$/);
    // a key that fits, or one without a parent, is as it was
    expect(detailLines({ short: 1 }, 78)[0]).toMatch(/^short {4}/);
  });
});
