import { readdirSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { build, type Metafile, type Plugin } from 'esbuild';
// @ts-expect-error: a plain .mjs build script without types
import * as patches from '../../scripts/dependency-edits.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { DASHBOARD_BUNDLE_OPTIONS } from '../../scripts/bundle-options.mjs';
// @ts-expect-error: a plain .mjs build script without types
import { INK_FRAME_REDIRECTS } from '../../scripts/ink-frame.mjs';
import { filesOf, publishedSources } from './patches.js';

/**
 * The dependencies' patches (patches/, applied by patch-package at `npm install`;
 * scripts/dependency-edits.mjs, docs/dependency-edits.md): each is applied to node_modules, so
 * that vitest and the benchmarks run it, and the dashboard's bundle takes the patched files. After
 * an upgrade, `npm install` fails on a patch that no longer applies (the `dependencies` script's
 * patch-package --error-on-fail), and this fails, naming the patch and the file. The patches' own
 * effects are tested beside them (dashboard-bundle.test.ts, lazy-unicode-data.test.ts).
 */
interface DependencyPatch {
  patch: string;
  files: Record<string, string>;
}
interface Redirect {
  importer: RegExp;
  specifier: string;
  target: string;
}
const { NODE_MODULES, PATCHES_DIR, patchMark, unpatchedFiles } = patches as {
  NODE_MODULES: string;
  PATCHES_DIR: string;
  patchMark(name: string): string;
  unpatchedFiles(): string[];
};
const PATCHES: DependencyPatch[] = (patches as { DEPENDENCY_PATCHES: DependencyPatch[] }).DEPENDENCY_PATCHES;
const REDIRECTS: Redirect[] = INK_FRAME_REDIRECTS;

describe('each patch of patches/', () => {
  it('is listed in scripts/dependency-edits.mjs with the files it changes', () => {
    const onDisk = readdirSync(PATCHES_DIR).filter((f) => f.endsWith('.patch'));
    expect(onDisk.sort()).toEqual(PATCHES.map((p) => p.patch).sort());
    for (const { patch, files } of PATCHES) expect(filesOf(patch).sort(), patch).toEqual(Object.keys(files).sort());
  });

  it.each(PATCHES.map((p) => [p.patch, p] as const))('%s is applied to node_modules', (_, { patch, files }) => {
    // it comes back out cleanly: node_modules holds the published files with exactly this patch
    const published = publishedSources(patch);
    for (const [file, name] of Object.entries(files)) {
      const installed = readFileSync(resolve(NODE_MODULES, file), 'utf8');
      expect(installed, `node_modules/${file}`).toContain(patchMark(name));
      expect(published.get(file), `node_modules/${file} as published`).not.toContain(patchMark(name));
    }
  });

  it('is found applied by the build, which refuses to bundle without it', () => {
    expect(unpatchedFiles()).toEqual([]);
  });
});

describe("the dashboard's bundle", () => {
  let inputs: Metafile['inputs'];
  let text: string;
  /** what the bundle read of each patched file */
  const read = new Map<string, string>();
  /** a bundled file's path relative to node_modules, with `/` */
  const inNodeModules = (input: string) => relative(NODE_MODULES, resolve(input)).split('\\').join('/');

  beforeAll(async () => {
    const patched = new Set(PATCHES.flatMap((p) => Object.keys(p.files)));
    const out = await build({
      ...DASHBOARD_BUNDLE_OPTIONS,
      plugins: [
        {
          name: 'what-the-bundle-reads',
          setup(b) {
            b.onLoad({ filter: /[\\/]node_modules[\\/]/ }, (args) => {
              const file = inNodeModules(args.path);
              if (patched.has(file)) read.set(file, readFileSync(args.path, 'utf8'));
              return undefined;
            });
          },
        } satisfies Plugin,
        ...(DASHBOARD_BUNDLE_OPTIONS as { plugins: Plugin[] }).plugins,
      ],
      entryPoints: ['src/cli/dashboard-bundle.ts'],
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    expect(out.warnings).toEqual([]);
    inputs = out.metafile!.inputs;
    text = out.outputFiles![0].text;
  });

  it('holds every patched file, read from node_modules as patched', () => {
    const bundled = new Set(Object.keys(inputs).map(inNodeModules));
    for (const { patch, files } of PATCHES)
      for (const [file, name] of Object.entries(files)) {
        expect(bundled.has(file), `${patch}: ${file}`).toBe(true);
        expect(read.get(file), `${patch}: ${file}`).toContain(patchMark(name));
      }
  });

  it("holds the patches' code", () => {
    expect(text).toContain('React devtools are not in the dashboard bundle');
    // src/text/graphemes.ts's rule, and each lazy-unicode-data patch's copy of it
    const rule = String.raw`/^[\0-\u02FF\u2000-\u200B\u200E-\u20CF\u2100-\u2BFF]*$/`;
    const copies = PATCHES.filter((p) => Object.values(p.files).includes('lazy-unicode-data')).length;
    expect(text.split(rule).length - 1).toBe(1 + copies);
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

  it("takes yoga-layout from its public entry without a top-level await (CommonJS, Node 20's code cache)", () => {
    const bundled = Object.keys(inputs).map(inNodeModules);
    expect(bundled).toContain('yoga-layout/dist/src/load.js');
    expect(bundled).not.toContain('yoga-layout/dist/src/index.js');
  });
});
