import { patchScreen, screenState, type UiStore } from '../state/ui.js';
import type { AnyScreen, ScreenLink } from '../kit/screen-api.js';

/**
 * Opens a screen on a link: its filter, state and selected row are set before it is shown, so its
 * first poll already asks for what the link names. An unknown screen is refused in words.
 * `followed`: the operator followed a link (Enter, a screen's action), so Esc returns to the screen
 * it was on, with its cursor; a screen asked for by name (`:log`) has nothing to go back to.
 */
export function openLink(ui: UiStore, screens: readonly AnyScreen[], link: ScreenLink, followed = true): string | null {
  if (!screens.some((s) => s.name === link.screen)) return `no screen "${link.screen}"`;
  const before = screenState(ui.getState(), link.screen);
  patchScreen(ui, link.screen, {
    filter: link.filter ?? '',
    extra: link.extra ?? before.extra,
    cursor: 0,
    selectedKey: link.select ?? null,
    scroll: 0,
  });
  const { screen: from, backTo } = ui.getState();
  ui.setState({
    screen: link.screen,
    mode: 'normal',
    detailScroll: 0,
    flash: null,
    backTo: followed ? trailTo(backTo, from, link.screen) : [],
  });
  return null;
}

/**
 * The trail after following a link from `from` to `to`: a link back to a screen already on it
 * returns there (the trail is cut before it), so following links in a circle does not grow it.
 */
function trailTo(backTo: string[], from: string, to: string): string[] {
  if (from === to) return backTo;
  const at = backTo.indexOf(to);
  return at >= 0 ? backTo.slice(0, at) : [...backTo, from];
}

/** Esc with nothing else to close: back to the screen whose link opened this one. False when there is none. */
export function goBack(ui: UiStore): boolean {
  const { backTo } = ui.getState();
  const to = backTo.at(-1);
  if (to === undefined) return false;
  ui.setState({ screen: to, mode: 'normal', detailScroll: 0, flash: null, backTo: backTo.slice(0, -1) });
  return true;
}
