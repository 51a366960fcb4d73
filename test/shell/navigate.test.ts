import { describe, expect, it } from 'vitest';
import { openLink } from '../../src/dashboard/shell/navigate.js';
import { createUiStore, patchScreen, screenState } from '../../src/dashboard/state/ui.js';
import type { AnyScreen } from '../../src/dashboard/kit/screen-api.js';

const screens = [{ name: 'overview' }, { name: 'journal' }] as unknown as AnyScreen[];

describe('openLink', () => {
  it('sets the target screen state before showing it', () => {
    const ui = createUiStore('overview');
    patchScreen(ui, 'journal', { cursor: 7, scroll: 3, filter: 'old' });
    expect(
      openLink(ui, screens, {
        screen: 'journal',
        extra: { agent: 'sales-copilot', status: 'failed' },
        select: 'jrn_1',
      }),
    ).toBeNull();
    const s = ui.getState();
    expect(s.screen).toBe('journal');
    expect(screenState(s, 'journal')).toEqual({
      cursor: 0,
      scroll: 0,
      filter: '',
      selectedKey: 'jrn_1',
      extra: { agent: 'sales-copilot', status: 'failed' },
    });
  });

  it('keeps the extra when the link names none, and refuses an unknown screen', () => {
    const ui = createUiStore('overview');
    patchScreen(ui, 'journal', { extra: { range: '7d' } });
    openLink(ui, screens, { screen: 'journal', filter: 'tool_error' });
    expect(screenState(ui.getState(), 'journal')).toMatchObject({ filter: 'tool_error', extra: { range: '7d' } });
    expect(openLink(ui, screens, { screen: 'nope' })).toBe('no screen "nope"');
    expect(ui.getState().screen).toBe('journal');
  });
});
