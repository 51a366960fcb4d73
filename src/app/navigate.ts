import { patchScreen, screenState, type UiStore } from '../store/ui.js';
import type { AnyScreen, ScreenLink } from '../ui/screen-api.js';

/**
 * Opens a screen on a link: its filter, state and selected row are set before it is shown, so its
 * first poll already asks for what the link names. An unknown screen is refused in words.
 */
export function openLink(ui: UiStore, screens: readonly AnyScreen[], link: ScreenLink): string | null {
  if (!screens.some((s) => s.name === link.screen)) return `no screen "${link.screen}"`;
  const before = screenState(ui.getState(), link.screen);
  patchScreen(ui, link.screen, {
    filter: link.filter ?? '',
    extra: link.extra ?? before.extra,
    cursor: 0,
    selectedKey: link.select ?? null,
    scroll: 0,
  });
  ui.setState({ screen: link.screen, mode: 'normal', detailScroll: 0, flash: null });
  return null;
}
