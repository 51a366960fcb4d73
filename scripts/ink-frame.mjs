// Ink modules replaced by the dashboard's own (src/dashboard/terminal/ink-frame/): its frame builder keeps the
// rows that did not change between frames (docs/dependency-edits.md). One table for
// the bundle (scripts/build.mjs) and for code run from source (scripts/ink-frame-hooks.mjs, used
// by the benchmarks and the tests), so both run the same frame builder.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export const INK_FRAME_REDIRECTS = [
  {
    importer: /[\\/]ink[\\/]build[\\/]renderer\.js$/,
    specifier: './output.js',
    target: `${root}src/dashboard/terminal/ink-frame/output.ts`,
  },
  {
    importer: /[\\/]ink[\\/]build[\\/](render-node-to-output|measure-text)\.js$/,
    specifier: 'widest-line',
    target: `${root}src/dashboard/terminal/ink-frame/widest-line.ts`,
  },
];

/** The replacement for `specifier` imported from `importer` (a path), or undefined. */
export function inkFrameTarget(specifier, importer) {
  return INK_FRAME_REDIRECTS.find((r) => r.specifier === specifier && r.importer.test(importer))?.target;
}

/** esbuild plugin */
export const inkFrame = {
  name: 'ink-frame',
  setup(b) {
    for (const specifier of new Set(INK_FRAME_REDIRECTS.map((r) => r.specifier))) {
      const filter = new RegExp(`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
      b.onResolve({ filter }, (args) => {
        const target = inkFrameTarget(args.path, args.importer);
        return target ? { path: target } : undefined;
      });
    }
  },
};
