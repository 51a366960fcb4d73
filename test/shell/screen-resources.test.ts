import { describe, expect, it } from 'vitest';
import { screenResources } from '../../src/dashboard/shell/screen-resources.js';
import { resourceKey } from '../../src/dashboard/state/resources.js';
import { defineScreen, type AnyScreen } from '../../src/dashboard/kit/screen-api.js';
import type { ScreenUiState } from '../../src/dashboard/kit/screen-state.js';

function countingScreen() {
  const seen: ScreenUiState[] = [];
  const screen = defineScreen<unknown>({
    name: 'counting',
    title: 'Counting',
    resources: (state) => {
      seen.push(state);
      return [
        {
          id: 'audit',
          route: 'listAudit',
          query: {
            limit: 50,
            ...(state.filter ? { action: state.filter } : {}),
            ...(state.extra.page ? { after: String(state.extra.page) } : {}),
          },
        },
      ];
    },
    render: () => null,
  }) as AnyScreen;
  return { screen, seen };
}

const at = (patch: Partial<ScreenUiState>): ScreenUiState => ({
  cursor: 0,
  selectedKey: null,
  scroll: 0,
  filter: '',
  extra: {},
  ...patch,
});

describe("a screen's resources", () => {
  it('are derived once per filter and extra, not on every cursor move', () => {
    const { screen, seen } = countingScreen();
    const extra = { page: 'c1' };
    const first = screenResources(screen, at({ extra }));
    for (let c = 1; c < 50; c++)
      expect(screenResources(screen, at({ extra, cursor: c, scroll: c, selectedKey: `k${c}` }))).toBe(first);
    expect(seen).toHaveLength(1);
    expect(first.keys).toEqual(first.requests.map(resourceKey));

    const filtered = screenResources(screen, at({ extra, filter: 'gateway.key.revoke' }));
    expect(filtered).not.toBe(first);
    expect(filtered.requests[0].query).toMatchObject({ action: 'gateway.key.revoke', after: 'c1' });
    const paged = screenResources(screen, at({ extra: { page: 'c2' }, filter: 'gateway.key.revoke' }));
    expect(paged.requests[0].query).toMatchObject({ after: 'c2' });
    expect(seen).toHaveLength(3);
  });

  it('are not given the cursor, the selected row or the scroll', () => {
    const { screen, seen } = countingScreen();
    screenResources(screen, at({ cursor: 7, scroll: 3, selectedKey: 'k7', filter: 'x' }));
    expect(seen[0]).toMatchObject({ cursor: 0, scroll: 0, selectedKey: null, filter: 'x' });
  });

  it('stay the same object for a filter that changes nothing they ask (a filter over the rows already read)', () => {
    const screen = defineScreen<unknown>({
      name: 'local-filter',
      title: 'Local filter',
      resources: () => [
        { id: 'keys', route: 'listKeys', query: { limit: 500 } },
        { id: 'usage', route: 'usage', query: { bucket: 'hour' }, everyMs: 10_000 },
      ],
      render: () => null,
    }) as AnyScreen;
    const extra = {};
    const first = screenResources(screen, at({ extra }));
    for (const filter of ['a', 'ab', 'a', '']) expect(screenResources(screen, at({ extra, filter }))).toBe(first);
    // another extra that asks the same: the same object too
    expect(screenResources(screen, at({ extra: { sort: 'name' } }))).toBe(first);
  });
});
