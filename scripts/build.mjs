// The CLI's esbuild bundles: production React; the commands as ES modules, code split so the
// server loads only for serve/demo; the dashboard app as one CommonJS file loaded with a code
// cache. Native better-sqlite3 stays external.
// Builds into a fresh folder and swaps it in, so a CLI already running from dist/ (a test, a
// dashboard) never sees a half-written or missing bundle.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUNDLE_OPTIONS, DASHBOARD_BUNDLE_OPTIONS, LAUNCH_OPTIONS, VENDORED } from './bundle-options.mjs';
import { buildCommit } from './build-commit.mjs';
import { assertPatched } from './dependency-edits.mjs';

// the dependency patches (patches/, applied by npm install): never a bundle without them
assertPatched();

const root = fileURLToPath(new URL('..', import.meta.url));
const next = `${root}dist.next-${process.pid}`;
const old = `${root}dist.old-${process.pid}`;
rmSync(next, { recursive: true, force: true });

/** One bundle into the new folder, with source maps; `options` say what and how. */
const bundle = (options) =>
  build({ ...options, absWorkingDir: root, outdir: next, sourcemap: 'linked', logLevel: 'warning' });

// demo: the embedded demo server, which the launcher imports for `appliance-admin demo`;
// ingest-worker: the thread that reads a connector source (src/server/ingest/read-in-worker.ts);
// demo-template: what makes the prebuilt demo below
// `--version` names the commit built (scripts/build-commit.mjs)
const commit = { APPLIANCE_ADMIN_COMMIT: JSON.stringify(buildCommit(root)) };
await bundle({
  ...BUNDLE_OPTIONS,
  define: { ...BUNDLE_OPTIONS.define, ...commit },
  entryPoints: {
    cli: 'src/cli/main.ts',
    demo: 'src/cli/embedded-demo.ts',
    'demo-template': 'src/cli/demo-template.ts',
    'ingest-worker': 'src/server/ingest/source-worker.ts',
    // written out below as screen-names.json, which the shell completions read
    'screen-names': 'src/cli/screen-names.ts',
  },
  splitting: true,
});
// The dashboard app as one CommonJS file, loaded with V8's code cache (src/cli/code-cache.ts);
// its name carries its content hash, which keys the cache.
await bundle({
  ...DASHBOARD_BUNDLE_OPTIONS,
  entryPoints: { dashboard: 'src/cli/dashboard-bundle.ts' },
  entryNames: '[name]-[hash]',
  outExtension: { '.js': '.cjs' },
});
// The CLI's entry (bin/appliance-admin.cjs): CommonJS, so that the dashboard starts without the ES
// module loader; it loads the dashboard's bundle, or hands other commands to cli.js.
await bundle({ ...LAUNCH_OPTIONS, entryPoints: { launch: 'src/cli/launch.ts' }, outExtension: { '.js': '.cjs' } });
// What those two leave to be required when first used, each bundled into dist/vendor/ (bundle-options.mjs)
await bundle({
  ...LAUNCH_OPTIONS,
  external: [],
  plugins: [],
  entryPoints: Object.fromEntries(VENDORED.map((name) => [`vendor/${name}`, name])),
  outExtension: { '.js': '.cjs' },
});
// The config file's JSON Schema for editors, generated from its zod schema (src/config/json-schema.ts)
const schemaModule = await build({
  entryPoints: ['src/config/json-schema.ts'],
  ...{ absWorkingDir: root, bundle: true, format: 'esm', platform: 'node', write: false },
});
const schemaCode = Buffer.from(schemaModule.outputFiles[0].text).toString('base64');
const { configJsonSchema } = await import(`data:text/javascript;base64,${schemaCode}`);
writeFileSync(`${next}/config.schema.json`, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
// The man pages, from the command table as --help is (src/cli/man-pages.ts): dist/man/*.1, roff.
// Dated by SOURCE_DATE_EPOCH when a package build sets it (the same pages from the same source), else today.
const manModule = await build({
  entryPoints: ['src/cli/man-pages.ts'],
  ...{ absWorkingDir: root, bundle: true, format: 'esm', platform: 'node', write: false },
});
const { manPages } = await import(
  `data:text/javascript;base64,${Buffer.from(manModule.outputFiles[0].text).toString('base64')}`
);
const manDate = new Date(process.env.SOURCE_DATE_EPOCH ? Number(process.env.SOURCE_DATE_EPOCH) * 1000 : Date.now());
mkdirSync(`${next}/man`);
for (const page of manPages(manDate.toISOString().slice(0, 10))) writeFileSync(`${next}/man/${page.file}`, page.text);
// The screens' names for the shell completions (src/cli/screen-names.ts, src/cli/completion.ts)
const { screenNames } = await import(`${next}/screen-names.js`);
writeFileSync(`${next}/screen-names.json`, `${JSON.stringify(screenNames())}\n`);
// The prebuilt demo (src/cli/demo-template.ts): 30 days of seeded history that a fresh demo copies
// and brings up to now. Made again when the server's code changed (the ES modules' contents) or
// when it is a day old (a demo seeds the time since it was made: a day is a fraction of a second);
// otherwise the last build's is kept, so that a build does not seed the history every time.
const TEMPLATE = 'demo-template';
const TEMPLATE_MAX_AGE_MS = 24 * 3600_000;
const serverHash = createHash('sha256');
for (const f of readdirSync(next)
  .filter((f) => f.endsWith('.js'))
  .sort())
  serverHash.update(f).update(readFileSync(`${next}/${f}`));
const templateKey = serverHash.digest('hex');
const keyFile = (dir) => `${dir}/${TEMPLATE}.key`;
const kept =
  existsSync(keyFile(`${root}dist`)) &&
  readFileSync(keyFile(`${root}dist`), 'utf8') === templateKey &&
  Date.now() - statSync(keyFile(`${root}dist`)).mtimeMs < TEMPLATE_MAX_AGE_MS;
if (kept) {
  renameSync(`${root}dist/${TEMPLATE}`, `${next}/${TEMPLATE}`);
  renameSync(keyFile(`${root}dist`), keyFile(next));
} else {
  const { makeDemoTemplate } = await import(`${next}/demo-template.js`);
  await makeDemoTemplate(`${next}/${TEMPLATE}`);
  writeFileSync(keyFile(next), templateKey);
}
// what `npm run dist` made (the single file, the .deb) is not this build's to remove: it moves along
if (existsSync(`${root}dist/release`)) renameSync(`${root}dist/release`, `${next}/release`);
// chunk names are content hashes, so files of the old bundle are never overwritten: the old
// folder is moved aside (one rename), the new one moved in (one rename), then the old removed
try {
  renameSync(`${root}dist`, old);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(next, `${root}dist`);
rmSync(old, { recursive: true, force: true });
