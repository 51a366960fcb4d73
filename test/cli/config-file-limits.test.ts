import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dashboardArgs } from '../../src/cli/dashboard-args.js';
import { CONFIG_MAX_BYTES } from '../../src/config/read.js';
import { CONFIG_MAX_ALIAS_VALUES, CONFIG_MAX_ALIASES, CONFIG_MAX_DEPTH } from '../../src/config/yaml.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

// What the config file's YAML may hold, and how long reading it may take (issue 37, point 3):
// every refusal is one line naming the file and where, never a stack.

beforeAll(ensureBuilt, 180_000);

const env = (): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: tempDir('aa-config-home') });

function configFile(text: string): string {
  const file = join(tempDir('aa-config-limits'), 'config.yaml');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** The one-line refusal of `text`, without the file's name before it; null when it is accepted. */
async function refusal(text: string): Promise<string | null> {
  const file = configFile(text);
  const err = await dashboardArgs(['demo', '--config', file], env()).then(
    () => null,
    (e: Error) => e,
  );
  if (err === null) return null;
  expect(err.name, err.stack).toBe('UsageError');
  expect(err.message).not.toContain('\n');
  expect(err.message.startsWith(`${file}: `)).toBe(true);
  return err.message.slice(file.length + 2);
}

describe('the config file’s YAML', () => {
  it('an alias bomb: exit 2 and one line, no stack', async () => {
    const file = configFile(
      [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
        'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
        'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
        'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
        'screen: *e',
        '',
      ].join('\n'),
    );
    const r = await runCli(['--config', file], { env: env() });
    expect([r.code, r.stdout, r.stderr]).toEqual([
      2,
      '',
      `appliance-admin: ${file}: line 3, column 29: more than ${CONFIG_MAX_ALIASES} aliases (*b): a config file may have at most ${CONFIG_MAX_ALIASES}\n`,
    ]);
  });

  it(`takes ${CONFIG_MAX_ALIASES} aliases and refuses one more; an alias inside what it names is refused`, async () => {
    const aliases = (n: number) =>
      `aliases:\n  a0: &s keys\n${Array.from({ length: n }, (_, i) => `  a${i + 1}: *s\n`).join('')}`;
    expect(await refusal(aliases(CONFIG_MAX_ALIASES))).toBeNull();
    expect(await refusal(aliases(CONFIG_MAX_ALIASES + 1))).toBe(
      `line ${CONFIG_MAX_ALIASES + 3}, column 8: more than ${CONFIG_MAX_ALIASES} aliases (*s): a config file may have at most ${CONFIG_MAX_ALIASES}`,
    );
    expect(await refusal('screens: &s\n  keys: *s\n')).toBe(
      'line 2, column 9: the alias *s is inside the value it names',
    );
    // an alias stands for what it names written out: a list of N values is N + 1
    const list = (n: number) => `x: &c [${Array.from({ length: n }, () => 'Name').join(', ')}]\ny: *c\n`;
    expect(await refusal(list(CONFIG_MAX_ALIAS_VALUES - 1))).toMatch(/^x: unknown key/);
    expect(await refusal(list(CONFIG_MAX_ALIAS_VALUES))).toBe(
      `line 2, column 4: the alias *c stands for more than ${CONFIG_MAX_ALIAS_VALUES} values`,
    );
  });

  it('refuses unknown tags, YAML 1.1’s too; the core schema’s are fine', async () => {
    expect(await refusal('screen: !foo keys\n')).toBe(
      'line 1, column 9: unknown tag !foo (plain values, lists and maps only)',
    );
    expect(await refusal('screen: !!binary a2V5cw==\n')).toMatch(
      /^line 1, column 9: unknown tag tag:yaml.org,2002:binary /,
    );
    expect(await refusal('screen: !!timestamp 2001-12-14\n')).toMatch(/: unknown tag tag:yaml.org,2002:timestamp /);
    expect(await refusal('aliases: !!set {k}\n')).toMatch(/^line 1, column 10: unknown tag tag:yaml.org,2002:set /);
    expect(await refusal('aliases: !!omap [k: keys]\n')).toMatch(/: unknown tag tag:yaml.org,2002:omap /);
    expect(await refusal('%FOO bar\n---\nscreen: keys\n')).toBe('line 1, column 1: Unknown directive %FOO');
    expect(await refusal('screen: !!str keys\nrefresh: !!str 2s\ntheme: ! dark\n')).toBeNull();
  });

  it(`refuses a file over ${CONFIG_MAX_BYTES / 1024} KiB at once: 300,000 keys`, async () => {
    const text = Array.from({ length: 300_000 }, (_, i) => `k${i}: 1\n`).join('');
    const file = configFile(text);
    await dashboardArgs(['demo', '--config', configFile('screen: keys\n')], env()); // the reader loaded
    let message = '';
    // refused by its size before it is parsed (a bound in time is a benchmark's, not a test's)
    await dashboardArgs(['demo', '--config', file], env()).catch((e: Error) => (message = e.message));
    expect(message).toBe(
      `the config file ${file} is larger than ${CONFIG_MAX_BYTES / 1024} KiB, the most a config file may be`,
    );
    // the cap exactly is fine
    const padded = `screen: keys\n#${'x'.repeat(CONFIG_MAX_BYTES - 15)}\n`;
    expect(padded.length).toBe(CONFIG_MAX_BYTES);
    expect(await refusal(padded)).toBeNull();
    const over = configFile(`${padded}\n`);
    await expect(dashboardArgs(['demo', '--config', over], env())).rejects.toThrow(
      `the config file ${over} is larger than 256 KiB`,
    );
  });

  it('40,000 keys under the cap: checked in linear time (the parser’s own check took 26 s)', async () => {
    // in a flow map, 240 KB; the last key repeats the first
    const keys = Array.from({ length: 40_000 }, (_, i) => `k${i.toString(36)}`);
    const text = `{${keys.join(', ')}, k0}\n`;
    expect(text.length).toBeLessThan(CONFIG_MAX_BYTES);
    // the quadratic check took 26-73 s: past this test's time limit, which is the only bound here
    const message = await refusal(text);
    expect(message).toBe(`line 1, column ${text.length - 3}: Map keys must be unique`);
  });

  it(`refuses nesting deeper than ${CONFIG_MAX_DEPTH} levels, and keys that are not plain values`, async () => {
    const nested = (n: number) => `screens: ${'['.repeat(n - 1)}${']'.repeat(n - 1)}\n`;
    expect(await refusal(nested(CONFIG_MAX_DEPTH))).toBe('screens: expected screens by name');
    expect(await refusal(nested(CONFIG_MAX_DEPTH + 1))).toBe(
      `line 1, column ${CONFIG_MAX_DEPTH + 9}: nested more than ${CONFIG_MAX_DEPTH} levels deep`,
    );
    // deep enough that the parser itself runs out of stack
    expect(await refusal(nested(5000))).toMatch(/^line 1, column \d+: nested more than 32 levels deep$/);
    expect(await refusal('? [screen]\n: keys\n')).toBe(
      'line 1, column 3: a key must be a plain value, not a list, a map or an alias',
    );
    expect(await refusal('screens:\n  keys:\n    sort: Name\n  keys:\n    sort: Status\n')).toBe(
      'line 4, column 3: Map keys must be unique',
    );
  });
});
