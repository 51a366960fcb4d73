import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { checkConfigFolder, readConfigText } from './read.js';

/**
 * `:columns save`: a screen's columns written into the config file as `screens.NAME.columns`,
 * keeping the rest of the file (its comments too). A file not there yet is made, mode 0600 in a
 * folder made 0700, as `config init` makes it, so that loading it never refuses it. A file loading
 * refuses (read.ts, yaml.ts) is not written to. The YAML parser is loaded only now.
 */
export async function saveScreenColumns(file: string, screen: string, columns: readonly string[]): Promise<void> {
  await saveScreenSetting(file, screen, 'columns', [...columns]);
}

/** `:sort save`: a screen's order ("Name desc") as `screens.NAME.sort`, the same way. */
export async function saveScreenSort(file: string, screen: string, sort: string): Promise<void> {
  await saveScreenSetting(file, screen, 'sort', sort);
}

async function saveScreenSetting(file: string, screen: string, key: string, value: unknown): Promise<void> {
  const text = readConfigText(file, true);
  const { parseConfigYaml } = await import('./yaml.js');
  const doc = parseConfigYaml(
    text ?? '',
    (where, what) => new Error(`${file} does not read as YAML: ${where}: ${what}`),
  );
  doc.setIn(['screens', screen, key], Array.isArray(value) ? doc.createNode(value, { flow: true }) : value);
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  if (text === undefined) checkConfigFolder(dirname(resolve(file)), file);
  await writeFile(file, String(doc), { mode: 0o600 });
}
