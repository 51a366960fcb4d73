import { flash, patchScreen, screenState } from '../state/ui.js';
import { sanitize } from '../../text/sanitize.js';
import { findHeader, listColumns, orderColumns, showColumn } from './column-choice.js';
import type { Command, CommandContext } from './command.js';

const SUBCOMMANDS = ['hide', 'show', 'order', 'reset', 'save'];

/**
 * `:columns`: which of the list's columns show, and in what order, kept per screen in the ui
 * store; `save` hands them to the config (DashboardSettings.saveColumns).
 */
export const columnsCommand: Command = {
  name: 'columns',
  args: '[hide|show|order|reset|save]',
  help: "the list's columns (alone: lists them)",
  complete(ctx) {
    const all = listColumns(ctx.screen);
    if (typeof all === 'string') return [];
    const visible = screenState(ctx.deps.ui.getState(), ctx.screen.name).columns ?? all;
    return [
      ...visible.map((h) => `hide ${h}`),
      ...all.filter((h) => !visible.includes(h)).map((h) => `show ${h}`),
      `order ${visible.join(',')}`,
      'reset',
      'save',
    ];
  },
  run: runColumns,
};

function runColumns(ctx: CommandContext, args: string) {
  const { deps, screen } = ctx;
  const say = (text: string, tone: 'info' | 'warn' = 'info') => flash(deps.ui, text, tone);
  const all = listColumns(screen);
  if (typeof all === 'string') return say(`${all}: it has no columns`, 'warn');
  const chosen = screenState(deps.ui.getState(), screen.name).columns;
  const visible = chosen ?? all;
  const set = (columns: string[] | null) => patchScreen(deps.ui, screen.name, { columns });
  const [sub = '', ...rest] = args.split(/\s+/).filter(Boolean);
  const typed = rest.join(' ');
  const unknown = (name: string) => `no column "${sanitize(name, 40)}" here; the columns: ${all.join(', ')}`;
  switch (sub.toLowerCase()) {
    case '': {
      const hidden = all.filter((h) => !visible.includes(h));
      return say(
        `columns of ${screen.name}: shown ${visible.join(', ')}${hidden.length ? `; hidden ${hidden.join(', ')}` : ''}`,
      );
    }
    case 'hide': {
      const header = findHeader(all, typed);
      if (!header) return say(unknown(typed), 'warn');
      if (!visible.includes(header)) return say(`${header} is already hidden`);
      if (visible.length === 1) return say(`${header} is the last column shown: it stays`, 'warn');
      set(visible.filter((h) => h !== header));
      return say(`${header} hidden (:columns show ${header} brings it back)`);
    }
    case 'show': {
      const header = findHeader(all, typed);
      if (!header) return say(unknown(typed), 'warn');
      set(showColumn(all, visible, header));
      return say(`${header} shown`);
    }
    case 'order': {
      const names = typed
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      const headers = names.map((n) => findHeader(all, n));
      const missing = names.find((_, i) => headers[i] === undefined);
      if (missing !== undefined || names.length === 0) return say(unknown(missing ?? ''), 'warn');
      const order = orderColumns(visible, [...new Set(headers as string[])]);
      set(order);
      return say(`columns: ${order.join(', ')}`);
    }
    case 'reset':
      set(null);
      return say(`columns of ${screen.name} as the screen gives them`);
    case 'save':
      return saveColumns(ctx, visible);
  }
  say(`:columns takes ${SUBCOMMANDS.join(', ')}, or nothing to list them`, 'warn');
}

function saveColumns(ctx: CommandContext, visible: string[]) {
  const { deps, screen } = ctx;
  const save = deps.settings.saveColumns;
  if (!save) return flash(deps.ui, 'no config file to save to: the columns stay until you quit', 'warn');
  void Promise.resolve()
    .then(() => save(screen.name, visible))
    .then(
      () => flash(deps.ui, `columns of ${screen.name} saved to the config`),
      (err: unknown) =>
        flash(deps.ui, `could not save the columns: ${sanitize(String((err as Error)?.message ?? err), 120)}`, 'warn'),
    );
}
