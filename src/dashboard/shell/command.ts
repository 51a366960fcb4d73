import { flash } from '../state/ui.js';
import type { AnyScreen } from '../kit/screen-api.js';
import type { DashboardDeps } from './deps.js';

/** What a `:` command acts on: the dashboard and the screen shown when it was typed. */
export interface CommandContext {
  deps: DashboardDeps;
  screen: AnyScreen;
  exit(): void;
}

/** A `:` command: its name, what it takes, what Tab offers for it, what it does. */
export interface Command {
  name: string;
  /** its arguments as the help writes them, '' when it takes none */
  args: string;
  help: string;
  /** what may follow the name (whole argument texts; Tab completes the typed one among them) */
  complete?(ctx: CommandContext): string[];
  run(ctx: CommandContext, args: string): void;
}

/** A `:` command's answer, in the status line. */
export const say = (ctx: CommandContext, text: string, tone: 'info' | 'warn' = 'info') =>
  flash(ctx.deps.ui, text, tone);
