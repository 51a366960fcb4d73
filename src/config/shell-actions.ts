/**
 * The shell's own actions, by id: what a config file's `keys:` may rebind besides a screen's actions
 * (`<screen>.<label>`). Kept apart from the keymap so that the config schema can name them without
 * loading the dashboard.
 */
export const SHELL_ACTIONS = [
  'cursor-up',
  'cursor-down',
  'page-up',
  'page-down',
  'first',
  'last',
  'open',
  'back',
  'next-screen',
  'previous-screen',
  'command',
  'filter',
  'sort-next',
  'sort-flip',
  'refresh',
  'pause',
  'help',
  'quit',
] as const;

export type ShellAction = (typeof SHELL_ACTIONS)[number];
