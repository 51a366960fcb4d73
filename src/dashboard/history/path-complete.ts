/** Tab in the export dialog's file field: the directory entries of what is typed, as a shell completes. */
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import type { Completion } from '../kit/dialog-specs.js';

/** More candidates than fit a line are counted, not listed. */
const MAX_CANDIDATES = 50;

const commonPrefix = (names: string[]) =>
  names.reduce((p, n) => {
    let i = 0;
    while (i < p.length && i < n.length && p[i] === n[i]) i++;
    return p.slice(0, i);
  });

/**
 * Completes `typed` (relative to `folder`, or absolute, or from ~): one match is completed (a
 * directory with its /), several complete to what they share and are listed. Hidden entries
 * only when a . is typed, as shells do.
 */
export async function completePath(typed: string, folder: string): Promise<Completion> {
  const cut = typed.lastIndexOf('/') + 1;
  const dirPart = typed.slice(0, cut);
  const start = typed.slice(cut);
  const dir = resolve(folder, (dirPart || '.').replace(/^~(?=\/|$)/, homedir()));
  // loaded here, not with the dashboard: see checkDestination in export.ts
  const { readdir } = process.getBuiltinModule('node:fs/promises');
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names = entries
    .filter((e) => e.name.startsWith(start) && (start.startsWith('.') || !e.name.startsWith('.')))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  if (names.length === 0) return { text: typed, candidates: [] };
  if (names.length === 1) return { text: dirPart + names[0], candidates: [] };
  const shared = commonPrefix(names);
  const listed = names.slice(0, MAX_CANDIDATES);
  return {
    text: dirPart + shared,
    candidates: names.length > MAX_CANDIDATES ? [...listed, `… ${names.length - MAX_CANDIDATES} more`] : listed,
  };
}
