/** `appliance-admin man [COMMAND]`: a man page on stdout, so that the single file carries its pages too. */
import { UsageError } from '../config/usage-error.js';
import { sanitize } from '../text/sanitize.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';
import { manPages } from './man-pages.js';

/** The page's date: the build's (SOURCE_DATE_EPOCH when set, as the build's pages are dated), else today. */
const pageDate = (env: NodeJS.ProcessEnv): string => {
  const epoch = Number(env.SOURCE_DATE_EPOCH);
  return new Date(Number.isFinite(epoch) && epoch > 0 ? epoch * 1000 : Date.now()).toISOString().slice(0, 10);
};

export function manCommand(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): number {
  if (argv.length > 1) throw new UsageError(`name one command at most\n${helpText(commandAt(['man']))}`);
  const file = argv[0] === undefined ? 'appliance-admin.1' : `appliance-admin-${argv[0]}.1`;
  const page = manPages(pageDate(env)).find((p) => p.file === file);
  if (!page) throw new UsageError(`no man page for "${sanitize(argv[0] ?? '', 60)}"\n${helpText(commandAt(['man']))}`);
  process.stdout.write(page.text);
  return 0;
}
