// The Debian package (issue 42 §2): appliance-admin_VERSION_amd64.deb in releaseDir, from the
// single file (scripts/dist.mjs), the npm build (dist/), the native SQLite module for Node 24 and
// packaging/deb/ (the systemd unit, its user, the config files, the maintainer scripts).
// Needs dpkg-deb (dpkg) and dpkg-shlibdeps (dpkg-dev); no root: dpkg-deb --root-owner-group makes
// every file root's. README "On an appliance (the .deb)" says what is where and why.
//
//   node scripts/deb.mjs SINGLE_FILE    the package, from that single file and this tree's dist/
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
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const PACKAGE = 'appliance-admin';
const ARCH = 'amd64';
/** Where the npm build goes, beside /usr/bin: the single file runs `serve` from there (src/cli/single-file.ts). */
const LIB = `usr/lib/${PACKAGE}`;
/** better-sqlite3 13, the build for Node 22 and later (src/server/db/sqlite-driver.ts), by its alias. */
const SQLITE_MODULE = 'better-sqlite3-n22';
const SQLITE_PREBUILD = 'prebuilds/linux-x64.node';
/** Debian's places for the completions of `appliance-admin completion SHELL`. */
const COMPLETIONS = {
  bash: `usr/share/bash-completion/completions/${PACKAGE}`,
  zsh: `usr/share/zsh/vendor-completions/_${PACKAGE}`,
  fish: `usr/share/fish/vendor_completions.d/${PACKAGE}.fish`,
};
const CONFFILES = [`/etc/${PACKAGE}/server.json`, `/etc/default/${PACKAGE}`];
const DEFAULT_MAINTAINER = 'appliance-admin maintainers <appliance-admin@example.org>';

/**
 * Builds the .deb and returns its path. Man pages (dist/man/*.1) and completions (`completion
 * SHELL` of the npm build) are taken where they exist; a missing one is a warning in the output,
 * and the package is built without it.
 */
export async function buildDeb({ root, releaseDir, singleFile, version, log = defaultLog }) {
  root = resolve(root);
  const debVersion = debianVersion(version);
  const stage = mkdtempSync(join(tmpdir(), `${PACKAGE}-deb-`));
  // the package's / is the installed system's: mkdtemp's 0700 would end up there
  chmodSync(stage, 0o755);
  try {
    const put = (path, content, mode = 0o644) => writeFile(join(stage, path), content, mode);
    const warnings = [];
    const warn = (message) => {
      warnings.push(message);
      log(`WARNING: ${message}`);
    };

    copyFile(singleFile, join(stage, 'usr/bin', PACKAGE), 0o755);
    copyNpmBuild(root, join(stage, LIB), version);
    copySqliteModule(root, join(stage, LIB, 'node_modules', SQLITE_MODULE));

    const own = (file) => readFileSync(join(root, 'packaging/deb', file));
    put(`lib/systemd/system/${PACKAGE}.service`, own(`${PACKAGE}.service`));
    put(`usr/lib/sysusers.d/${PACKAGE}.conf`, own('sysusers.conf'));
    put(`etc/${PACKAGE}/server.json`, own('server.json'));
    put(`etc/default/${PACKAGE}`, own('default'));
    put(`usr/share/lintian/overrides/${PACKAGE}`, own('lintian-overrides'));

    for (const page of manPages(root, warn)) {
      put(`usr/share/man/man1/${page.name}.gz`, gzip(readFileSync(page.path)));
    }
    for (const [shell, path] of Object.entries(COMPLETIONS)) {
      const script = completion(root, shell, warn);
      if (script) put(path, script);
    }

    const maintainer = maintainerOf(root);
    const epoch = sourceDateEpoch(root);
    const doc = `usr/share/doc/${PACKAGE}`;
    put(`${doc}/copyright`, copyright(root));
    put(`${doc}/changelog.Debian.gz`, gzip(debianChangelog(debVersion, maintainer, epoch, commitOf(root))));
    put(`${doc}/changelog.gz`, gzip(readFileSync(join(root, 'CHANGELOG.md'))));

    const control = join(stage, 'DEBIAN');
    mkdirSync(control, { mode: 0o755 });
    for (const script of ['postinst', 'prerm', 'postrm']) put(`DEBIAN/${script}`, own(script), 0o755);
    put('DEBIAN/conffiles', `${CONFFILES.join('\n')}\n`);
    // every folder 0755 whatever the umask was when they were made (0077 would make them root's only)
    openFolders(stage);
    put('DEBIAN/md5sums', md5sums(stage));
    put(
      'DEBIAN/control',
      controlFile({
        version: debVersion,
        maintainer,
        depends: [...sharedLibraryDepends(stage), 'systemd-sysusers'],
        installedSize: installedSizeKiB(stage),
      }),
    );

    mkdirSync(releaseDir, { recursive: true });
    const deb = join(releaseDir, `${PACKAGE}_${debVersion}_${ARCH}.deb`);
    // xz at level 1: most of the package is the Node binary, which higher levels make only a little
    // smaller, for many times the build's time
    execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '-z1', '--build', stage, deb], {
      env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    log(`built ${relative(process.cwd(), deb) || deb}${warnings.length ? ` with ${warnings.length} warning(s)` : ''}`);
    return deb;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

const defaultLog = (message) => process.stderr.write(`deb: ${message}\n`);

/** npm's version in Debian's order: a pre-release (0.2.0-rc.1) sorts before its release (0.2.0~rc.1). */
export function debianVersion(version) {
  if (!/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`not a version: ${version}`);
  return version.replace(/-/, '~').replace(/-/g, '.');
}

function writeFile(path, content, mode) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  writeFileSync(path, content);
  chmodSync(path, mode);
}

function openFolders(dir) {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isDirectory()) openFolders(join(dir, entry.name));
}

function copyFile(from, to, mode) {
  mkdirSync(dirname(to), { recursive: true, mode: 0o755 });
  copyFileSync(from, to);
  chmodSync(to, mode);
}

/**
 * The npm build the single file runs `serve` (and the other database commands) from: the CLI's
 * entry and dist/, without source maps (nothing on the appliance reads them), the man pages
 * (they go to /usr/share/man), release/ (the single file and this package) and the prebuilt demo
 * history (large; `demo` seeds its own without it). The package.json says dist/*.js are ES modules.
 */
function copyNpmBuild(root, to, version) {
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'launch.cjs'))) throw new Error(`${dist} holds no build: run npm run build first`);
  const skip = (name) => name.endsWith('.map') || name === 'man' || name.startsWith('demo-template.');
  const skipDir = (name) => name === 'man' || name === 'demo-template' || name === 'release';
  copyTree(dist, join(to, 'dist'), (name, isDir) => !(isDir ? skipDir(name) : skip(name)));
  // loaded with require by the single file, never run by a `node` on the PATH: without its #! line
  const entry = readFileSync(join(root, 'bin', `${PACKAGE}.cjs`), 'utf8').replace(/^#!.*\n/, '');
  writeFile(join(to, 'bin', `${PACKAGE}.cjs`), entry, 0o644);
  const manifest = { name: PACKAGE, version, private: true, type: 'module' };
  writeFile(join(to, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`, 0o644);
}

/**
 * better-sqlite3 13 as it runs: its JavaScript and the linux-x64 prebuild its binding.js loads
 * when nothing was compiled (no build/ folder), stripped of its symbol table as dh_strip would
 * (its licence is in the copyright file). node-addon-api, its one dependency, is C++ headers for
 * compiling it: nothing at run time.
 */
function copySqliteModule(root, to) {
  const from = dirname(createRequire(join(root, 'package.json')).resolve(`${SQLITE_MODULE}/package.json`));
  copyTree(join(from, 'lib'), join(to, 'lib'), (name, isDir) => isDir || name.endsWith('.js'));
  copyFile(join(from, 'package.json'), join(to, 'package.json'), 0o644);
  copyFile(join(from, SQLITE_PREBUILD), join(to, SQLITE_PREBUILD), 0o644);
  execFileSync('strip', [
    '--strip-unneeded',
    '--remove-section=.comment',
    '--remove-section=.note',
    join(to, SQLITE_PREBUILD),
  ]);
}

function copyTree(from, to, keep) {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (!keep(entry.name, entry.isDirectory())) continue;
    if (entry.isDirectory()) copyTree(join(from, entry.name), join(to, entry.name), keep);
    else if (entry.isFile()) copyFile(join(from, entry.name), join(to, entry.name), 0o644);
  }
}

/** dist/man/*.1, written by the build from the command table (H4's part of issue 42). */
function manPages(root, warn) {
  const dir = join(root, 'dist', 'man');
  const pages = existsSync(dir) ? readdirSync(dir).filter((f) => /\.1$/.test(f)) : [];
  if (pages.length === 0) warn(`no man pages in ${dir}: the package has none (the build writes them there)`);
  return pages.sort().map((name) => ({ name, path: join(dir, name) }));
}

/** `appliance-admin completion SHELL` of the npm build: the same command table as the single file's. */
function completion(root, shell, warn) {
  const run = spawnSync(process.execPath, [join(root, 'bin', `${PACKAGE}.cjs`), 'completion', shell], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  if (run.status === 0 && run.stdout.trim()) return run.stdout;
  warn(`no ${shell} completion (\`${PACKAGE} completion ${shell}\` failed: ${firstLine(run.stderr || run.error)})`);
  return undefined;
}

const firstLine = (text) => String(text ?? '').split('\n')[0] || 'no output';

/** The same bytes for the same input: no name or time stamp in the gzip header, best compression. */
const gzip = (data) => gzipSync(data, { level: 9 });

/** Lines of "MD5  path" for every file but DEBIAN/'s, as dpkg's md5sums wants them. */
function md5sums(stage) {
  return files(stage)
    .filter((f) => !f.startsWith('DEBIAN/'))
    .map(
      (f) =>
        `${createHash('md5')
          .update(readFileSync(join(stage, f)))
          .digest('hex')}  ${f}\n`,
    )
    .join('');
}

function files(dir, prefix = '') {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((e) => (e.isDirectory() ? files(dir, join(prefix, e.name)) : [join(prefix, e.name)]));
}

/** Installed-Size: KiB, each file rounded up to a KiB, as dpkg-gencontrol counts. */
function installedSizeKiB(stage) {
  return files(stage).reduce((sum, f) => sum + Math.ceil(statSync(join(stage, f)).size / 1024), 0);
}

/**
 * The libraries the ELF files need (the single file's Node, the SQLite module), with the lowest
 * versions that have the symbols they use, as dpkg-shlibdeps reads them from this system's
 * packages: e.g. libc6 (>= 2.28), libstdc++6 (>= 9).
 */
function sharedLibraryDepends(stage) {
  const work = mkdtempSync(join(tmpdir(), `${PACKAGE}-shlibdeps-`));
  try {
    // dpkg-shlibdeps reads the source package's debian/control: a minimal one
    mkdirSync(join(work, 'debian'));
    writeFileSync(join(work, 'debian/control'), `Source: ${PACKAGE}\n\nPackage: ${PACKAGE}\nArchitecture: ${ARCH}\n`);
    const elf = [`usr/bin/${PACKAGE}`, `${LIB}/node_modules/${SQLITE_MODULE}/${SQLITE_PREBUILD}`];
    // --warnings=0: its warnings are expected here (the SQLite module uses Node's N-API symbols,
    // which the executable provides; Node's own needless libdl and libpthread links)
    const out = execFileSync('dpkg-shlibdeps', ['-O', '--warnings=0', ...elf.map((f) => `-e${join(stage, f)}`)], {
      cwd: work,
      encoding: 'utf8',
    });
    const line = out.split('\n').find((l) => l.startsWith('shlibs:Depends='));
    if (!line) throw new Error(`dpkg-shlibdeps gave no shlibs:Depends: ${out}`);
    return line
      .slice('shlibs:Depends='.length)
      .split(',')
      .map((d) => d.trim())
      .filter(Boolean);
  } catch (err) {
    if (err.code === 'ENOENT')
      throw new Error('dpkg-shlibdeps is missing: install dpkg-dev (apt-get install dpkg-dev)');
    throw err;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function controlFile({ version, maintainer, depends, installedSize }) {
  return `Package: ${PACKAGE}
Version: ${version}
Architecture: ${ARCH}
Maintainer: ${maintainer}
Installed-Size: ${installedSize}
Depends: ${depends.join(', ')}
Section: admin
Priority: optional
Description: terminal dashboard and reference server for appliance administration
 appliance-admin is a terminal dashboard for the appliance administration API
 (keys, spend, connectors, models, the audit trail and its evidence packs) and
 the reference server that implements that API.
 .
 This package holds one executable with its own Node.js runtime
 (/usr/bin/appliance-admin), the reference server's code and native SQLite
 module, and a systemd service (appliance-admin.service) that runs the server
 as its own user with its data in /var/lib/appliance-admin.
`;
}

/** package.json's author, if it names one; the placeholder otherwise (the report says so). */
function maintainerOf(root) {
  const { author } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  if (typeof author === 'string' && /<[^>]+@[^>]+>/.test(author)) return author;
  if (author?.name && author?.email) return `${author.name} <${author.email}>`;
  return process.env.DEB_MAINTAINER || DEFAULT_MAINTAINER;
}

/** SOURCE_DATE_EPOCH, else the commit's time: the same tree gives the same package. */
function sourceDateEpoch(root) {
  if (process.env.SOURCE_DATE_EPOCH) return Number(process.env.SOURCE_DATE_EPOCH);
  const git = spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: root, encoding: 'utf8' });
  return git.status === 0 && git.stdout.trim() ? Number(git.stdout.trim()) : Math.floor(Date.now() / 1000);
}

function commitOf(root) {
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return git.status === 0 ? git.stdout.trim() : undefined;
}

function debianChangelog(version, maintainer, epoch, commit) {
  const date = new Date(epoch * 1000).toUTCString().replace(/GMT$/, '+0000');
  return `${PACKAGE} (${version}) unstable; urgency=medium

  * appliance-admin ${version}${commit ? ` (commit ${commit})` : ''}: the changes are in
    /usr/share/doc/${PACKAGE}/changelog.gz.

 -- ${maintainer}  ${date}
`;
}

/**
 * debian/copyright (machine-readable): appliance-admin itself, the Node.js runtime inside the
 * single file, better-sqlite3, and the npm packages whose code the bundles hold (the single file's
 * bundles are made from the same sources as dist/'s).
 */
function copyright(root) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const bundled = bundledPackages(join(root, 'dist')).map((p) => `${p.name} ${p.version}: ${p.license}`);
  return `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ${PACKAGE}

Files: *
Copyright: the ${PACKAGE} authors
License: ${pkg.license}
Comment: The bundles in /usr/lib/${PACKAGE}/dist hold code of these npm packages
 (name version: licence), under their own licences:
 ${bundled.join('\n ')}

Files: usr/bin/${PACKAGE}
Copyright: Node.js contributors and others
License: Expat
Comment: the Node.js runtime with ${PACKAGE}'s code embedded. Node.js
 includes other components (V8, libuv, OpenSSL, ICU, zlib and more) under their own
 licences, listed in Node.js's LICENSE file (https://github.com/nodejs/node/blob/main/LICENSE).

Files: usr/lib/${PACKAGE}/node_modules/${SQLITE_MODULE}/*
Copyright: 2017 Joshua Wise; SQLite: public domain
License: Expat

License: ${pkg.license}
 ${pkg.license === 'UNLICENSED' ? 'No licence is granted: all rights reserved by the authors (package.json says "UNLICENSED").' : `See ${pkg.license}.`}

License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in
 all copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
 THE SOFTWARE.
`;
}

/**
 * The npm packages in dist/'s bundles, read from the bundles' source maps (each names the files it
 * was made from): name, version and licence from each package's package.json.
 */
function bundledPackages(dist) {
  const found = new Map();
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'release') visit(path);
      if (!entry.isFile() || !entry.name.endsWith('.map')) continue;
      for (const source of JSON.parse(readFileSync(path, 'utf8')).sources ?? []) {
        const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(resolve(dir, source));
        if (m && !found.has(m[1])) found.set(m[1], packageOf(m[1]));
      }
    }
  };
  visit(dist);
  const unique = new Map([...found.values()].map((p) => [`${p.name} ${p.version}`, p]));
  return [...unique.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function packageOf(dir) {
  const { name, version, license, licenses } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const named = license?.type ?? license ?? licenses?.map((l) => l.type ?? l).join(' OR ');
  return { name, version, license: named ?? 'no licence named in its package.json' };
}

// run directly: node scripts/deb.mjs SINGLE_FILE
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const singleFile = process.argv[2];
  if (!singleFile) {
    process.stderr.write('usage: node scripts/deb.mjs SINGLE_FILE\n');
    process.exit(2);
  }
  const root = fileURLToPath(new URL('..', import.meta.url));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  await buildDeb({ root, releaseDir: join(root, 'dist', 'release'), singleFile, version });
}
