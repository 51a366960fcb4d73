import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the built dashboard loads before its first frame, read from dist/: the chunks reachable
 * by static imports from cli.js, the dashboard command's chunk and the app's CommonJS bundle it
 * loads (dashboard-HASH.cjs), with the sources in them (from the source maps) and the packages
 * they require or import from node_modules. The bundle's lazily run parts count as loaded: their
 * source is read with the rest.
 */

const STATIC = /(?:^|[;\n}])\s*import\s*(?:[\w*${}\s,]+from\s*)?["']([^"']+)["']/g;
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g;

function importsOf(code: string): { statics: string[]; dynamics: string[] } {
  const statics = [...code.matchAll(STATIC)].map((m) => m[1]);
  const dynamics = [...code.matchAll(DYNAMIC)].map((m) => m[1]);
  return { statics, dynamics };
}

export interface LoadGraph {
  chunks: string[];
  bytes: number;
  /** source files (repo-relative, node_modules/… for packages) bundled into those chunks */
  sources: string[];
  /** bare or node: specifiers those chunks import (node built-ins and external packages) */
  externals: string[];
  /** chunks that load only later: other commands, the embedded demo */
  lazy: string[];
}

export function dashboardLoadGraph(dist: string): LoadGraph {
  const files = new Set(readdirSync(dist).filter((f) => f.endsWith('.js') || f.endsWith('.cjs')));
  const code = new Map<string, string>();
  const read = (f: string) => {
    if (!code.has(f)) code.set(f, readFileSync(join(dist, f), 'utf8'));
    return code.get(f)!;
  };
  const loaded = new Set<string>();
  const externals = new Set<string>();
  const visit = (f: string) => {
    if (loaded.has(f)) return;
    loaded.add(f);
    for (const s of importsOf(read(f)).statics) {
      if (s.startsWith('./')) visit(s.slice(2));
      else externals.add(s);
    }
  };
  visit('cli.js');
  const dashboard = importsOf(read('cli.js'))
    .dynamics.map((s) => s.slice(2))
    .find((f) => f.startsWith('dashboard-'));
  if (!dashboard) throw new Error('no dashboard chunk imported by dist/cli.js');
  visit(dashboard);
  // the app itself: one CommonJS file the dashboard chunk loads with the code cache
  const app = [...files].find((f) => /^dashboard-\w+\.cjs$/.test(f));
  if (!app) throw new Error('no dashboard-HASH.cjs in dist/');
  loaded.add(app);
  for (const m of read(app).matchAll(/\brequire\("([^"]+)"\)/g)) externals.add(m[1]);
  const sources = new Set<string>();
  for (const f of loaded) {
    const map = join(dist, `${f}.map`);
    if (!existsSync(map)) continue;
    for (const s of (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources) {
      sources.add(s.replace(/^(\.\.\/)+/, ''));
    }
  }
  return {
    chunks: [...loaded],
    bytes: [...loaded].reduce((n, f) => n + statSync(join(dist, f)).size, 0),
    sources: [...sources].sort(),
    externals: [...externals].sort(),
    lazy: [...files].filter((f) => !loaded.has(f)),
  };
}

/** Bytes of bundled code per package (or src/ folder) in the graph's chunks, largest first. */
export function bytesByPackage(dist: string, g: LoadGraph): [string, number][] {
  const sizes = new Map<string, number>();
  for (const f of g.chunks) {
    const map = join(dist, `${f}.map`);
    if (!existsSync(map)) continue;
    const m = JSON.parse(readFileSync(map, 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
    m.sources.forEach((s, i) => {
      const p =
        /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(s)?.[1] ??
        s
          .replace(/^(\.\.\/)+/, '')
          .split('/')
          .slice(0, 2)
          .join('/');
      sizes.set(p, (sizes.get(p) ?? 0) + (m.sourcesContent?.[i]?.length ?? 0));
    });
  }
  return [...sizes].sort((a, b) => b[1] - a[1]);
}

/**
 * Sources that must never be in the code read on the way to the dashboard's first frame: the
 * server's, and the QR code library (required from node_modules by a sign-in). The identity
 * provider client (openid-client) is in the dashboard's bundle for a sign-in asked again from the
 * dashboard, run only then.
 */
export const FORBIDDEN_ON_DASHBOARD_PATH = [
  /^src\/server\//,
  /node_modules\/fastify\//,
  /better-sqlite3/,
  /oidc-provider/,
  /node_modules\/qrcode\//,
  /node_modules\/pino\//,
];

export function forbiddenIn(g: LoadGraph): string[] {
  return [...g.sources, ...g.externals].filter((s) => FORBIDDEN_ON_DASHBOARD_PATH.some((re) => re.test(s)));
}
