import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { GROUPS, TABLE } from '../../src/cli/command-table/index.js';
import { COMMAND_NAMES } from '../../src/cli/command-table/names.js';
import { DEFAULT_TOKEN_TTL_DAYS } from '../../src/cli/command-table/token.js';
import { isDashboard } from '../../src/cli/commands.js';
import { DEFAULT_TOKEN_TTL_MS } from '../../src/server/tokens.js';

/**
 * Issue 42 §4: the man pages `npm run build` writes into dist/man/ render without a warning, and
 * list the same options as --help, both being made from the command table.
 */
const MAN = join(REPO, 'dist', 'man');
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** A page as a reader sees it: rendered by groff (man's formatter), plain ASCII, no line breaks inside an option. */
function rendered(page: string): { text: string; warnings: string } {
  const r = spawnSync('groff', ['-man', '-Tascii', '-P-cbou', '-ww', '-rLL=200n', join(MAN, page)], {
    encoding: 'utf8',
  });
  expect(r.status, r.stderr).toBe(0);
  return { text: r.stdout, warnings: r.stderr };
}

/** The long options a section of a rendered page lists as items (OPTIONS: the option list). */
function optionsInSection(text: string, section: string): Set<string> {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === section);
  const end = lines.findIndex((l, i) => i > start && /^[A-Z]/.test(l));
  const items = lines.slice(start + 1, end).filter((l) => /^ {7}(-\w, )?--[a-z]/.test(l));
  return new Set(items.map((l) => /--[a-z][a-z-]*/.exec(l)![0]));
}

/** The options a --help page lists, one a line as its option list writes them. */
const optionsInHelp = (help: string): Set<string> =>
  new Set(
    help
      .split('\n')
      .filter((l) => /^ {2,4}(-\w, )?--[a-z]/.test(l))
      .map((l) => /--[a-z][a-z-]*/.exec(l)![0]),
  );

describe('man pages', () => {
  beforeAll(() => ensureBuilt(), 180_000);

  it('dist/man holds appliance-admin.1 and one page per command group', () => {
    expect(readdirSync(MAN).sort()).toEqual(
      ['appliance-admin.1', ...GROUPS.map((g) => `appliance-admin-${g.name}.1`)].sort(),
    );
    expect(GROUPS.map((g) => g.name)).toEqual(COMMAND_NAMES.filter((n) => n !== '__complete'));
    // package.json's man: what `npm install -g` links where man finds it
    const { man } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { man: string[] };
    expect(man.map((f) => f.replace('./dist/man/', '')).sort()).toEqual(readdirSync(MAN).sort());
  });

  it.each(readdirSync(MAN))('%s renders without a warning (groff -ww), with its sections', (page) => {
    const { text, warnings } = rendered(page);
    expect(warnings).toBe('');
    for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'FILES', 'SEE ALSO'])
      expect(text).toMatch(new RegExp(`^${section}$`, 'm'));
    expect(readFileSync(join(MAN, page), 'latin1')).toMatch(/^[\x00-\x7f]*$/); // ASCII only: any locale reads it
  });

  it.skipIf(!has('mandoc'))(
    'mandoc -Tlint finds nothing to warn about (skipped when mandoc is not installed: Debian package mandoc)',
    () => {
      const r = spawnSync('mandoc', ['-Tlint', '-W', 'warning', ...readdirSync(MAN).map((p) => join(MAN, p))], {
        encoding: 'utf8',
      });
      expect(r.stdout + r.stderr).toBe('');
      expect(r.status).toBe(0);
    },
  );

  it('man -l shows a page as the reader types it', () => {
    const out = execFileSync('man', ['-l', join(MAN, 'appliance-admin-keys.1')], {
      encoding: 'utf8',
      env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '100', LC_ALL: 'C.UTF-8' },
    });
    expect(out).toMatch(/appliance-admin-keys - gateway keys/);
    expect(out).toMatch(/keys rotate KEY \[--grace 24h\]/);
  });

  it.each(GROUPS.map((g) => g.name))("%s --help and the group's man page list the same options", async (group) => {
    const help = await runCli([group, '--help']);
    expect(help.code, help.stderr).toBe(0);
    const inHelp = optionsInHelp(help.stdout);
    const inMan = optionsInSection(rendered(`appliance-admin-${group}.1`).text, 'OPTIONS');
    expect([...inMan].sort()).toEqual([...inHelp, '--help'].sort());
    // and each subcommand's own --help lists only options its group's page has
    const subs = GROUPS.find((g) => g.name === group)!.subcommands ?? [];
    const pages = await Promise.all(subs.map((sub) => runCli([group, sub.name, '--help'])));
    pages.forEach((page, i) => {
      expect(page.code, page.stderr).toBe(0);
      for (const o of optionsInHelp(page.stdout)) expect(inMan, `${group} ${subs[i].name}: ${o}`).toContain(o);
    });
  });

  it("the dashboard's --help and appliance-admin(1) list the same options", async () => {
    const help = await runCli(['demo', '--help']);
    expect(help.code, help.stderr).toBe(0);
    const inMan = optionsInSection(rendered('appliance-admin.1').text, 'OPTIONS');
    expect([...inMan].sort()).toEqual([...optionsInHelp(help.stdout), '--help', '--version'].sort());
  });

  it('the top-level --help lists every command of the table', async () => {
    const r = await runCli(['--help']);
    for (const g of GROUPS) expect(r.stdout).toMatch(new RegExp(`^  appliance-admin ${g.name}\\b`, 'm'));
    expect(r.stdout).not.toContain('__complete');
  });
});

describe('the command table', () => {
  it("every top-level command is one the launcher hands to main.ts (commands.ts), and the dashboard's words are not", () => {
    for (const name of COMMAND_NAMES) expect(isDashboard([name])).toBe(false);
    expect(isDashboard(['demo'])).toBe(true);
    expect(isDashboard(['--url', 'https://x'])).toBe(true);
    expect(TABLE.subcommands!.map((s) => s.name)).toEqual(['demo', ...COMMAND_NAMES]);
  });

  it("token's default lifetime is the server's", () => {
    expect(DEFAULT_TOKEN_TTL_DAYS * 86_400_000).toBe(DEFAULT_TOKEN_TTL_MS);
  });

  it('no command lists an option twice, and every option has a description', () => {
    const check = (spec: typeof TABLE, inherited: readonly string[]) => {
      const names = [...inherited, ...(spec.shared ?? []), ...(spec.options ?? [])].map((o) =>
        typeof o === 'string' ? o : o.name,
      );
      expect(new Set(names).size, spec.name).toBe(names.length);
      for (const o of [...(spec.shared ?? []), ...(spec.options ?? [])]) expect(o.description, o.name).not.toBe('');
      for (const sub of spec.subcommands ?? [])
        check(sub, spec === TABLE ? [] : (spec.shared ?? []).map((o) => o.name));
    };
    check(TABLE, []);
  });

  it("the launcher (dist/launch.cjs) does not carry the table: only the commands' names", () => {
    const launcher = readFileSync(join(REPO, 'dist', 'launch.cjs'), 'utf8');
    expect(launcher).toContain('"completion"');
    expect(launcher).not.toContain('Gateway keys from a script');
    expect(launcher).not.toContain('monitoring-plugins convention');
  });

  it('appliance-admin man [COMMAND] prints the page the build wrote (the single file carries its pages this way)', async () => {
    // the date line is the day it is asked: the rest is the build's page, word for word
    const body = (text: string) => text.replace(/^\.TH .*$/m, '.TH');
    const keys = await runCli(['man', 'keys']);
    expect(keys.code).toBe(0);
    expect(body(keys.stdout)).toBe(body(readFileSync(join(MAN, 'appliance-admin-keys.1'), 'utf8')));
    const main = await runCli(['man']);
    expect(body(main.stdout)).toBe(body(readFileSync(join(MAN, 'appliance-admin.1'), 'utf8')));
    const unknown = await runCli(['man', 'nosuch']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no man page for "nosuch"');
  });
});
