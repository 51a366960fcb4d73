import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { build, type Metafile } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import { COMMONJS_EDITS, DEPENDENCY_EDITS, NODE_MODULES, occurrences } from '../../scripts/dependency-edits.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { INK_FRAME_REDIRECTS } from '../../scripts/ink-frame.mjs';

/**
 * The bundle's edits of its dependencies (scripts/dependency-edits.mjs, docs/dependency-edits.md)
 * still apply to the versions installed: after an upgrade this fails, naming the edit, instead of
 * the bundle shipping without it. The edits' own effects are tested beside them
 * (dashboard-bundle.test.ts, lazy-unicode-data.test.ts, test/ui/ink-frame-output.test.ts).
 */
interface DependencyEdit {
  name: string;
  file: string;
  edits: [string, string][];
}
interface Redirect {
  importer: RegExp;
  specifier: string;
  target: string;
}
const EDITS: DependencyEdit[] = [...COMMONJS_EDITS, ...DEPENDENCY_EDITS];
const REDIRECTS: Redirect[] = INK_FRAME_REDIRECTS;

describe('each dependency edit finds what it replaces, exactly once, in the installed file', () => {
  it.each(EDITS.map((e) => [`${e.name} (node_modules/${e.file})`, e] as const))('%s', (_, edit) => {
    const path = join(NODE_MODULES, edit.file);
    expect(existsSync(path), `node_modules/${edit.file} is not there any more`).toBe(true);
    const code = readFileSync(path, 'utf8');
    for (const [find] of edit.edits)
      expect(occurrences(code, find), `${JSON.stringify(find.slice(0, 70))}… in node_modules/${edit.file}`).toBe(1);
  });
});

describe("the dashboard's bundle", () => {
  let inputs: Metafile['inputs'];
  /** a bundled file's path relative to node_modules, with `/` */
  const inNodeModules = (input: string) => relative(NODE_MODULES, resolve(input)).split('\\').join('/');

  beforeAll(async () => {
    const out = await build({
      ...DASHBOARD_BUNDLE_OPTIONS,
      entryPoints: ['src/cli/dashboard-bundle.ts'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(out.warnings).toEqual([]);
    inputs = out.metafile!.inputs;
  });

  it('holds every edited file: an edit never silently misses a file that moved', () => {
    const bundled = new Set(Object.keys(inputs).map(inNodeModules));
    for (const edit of EDITS) expect(bundled.has(edit.file), `${edit.name}: ${edit.file}`).toBe(true);
  });

  it("takes the frame builder's modules instead of Ink's, from the Ink modules that import them", () => {
    for (const { importer, specifier, target } of REDIRECTS) {
      const importers = Object.entries(inputs).filter(([path]) => importer.test(resolve(path)));
      expect(importers.length, `${importer}`).toBeGreaterThan(0);
      for (const [path, input] of importers) {
        const imported = input.imports.find((i) => i.original === specifier);
        expect(imported && resolve(imported.path), `${path} imports ${specifier}`).toBe(target);
      }
    }
    expect(Object.keys(inputs).map(inNodeModules)).not.toContain('ink/build/output.js');
  });
});
