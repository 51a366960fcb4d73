import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardArgs } from '../../src/cli/dashboard-args.js';
import { argvForAppliance } from '../../src/cli/dashboard-flags.js';
import { effectiveSettings } from '../../src/cli/dashboard-settings.js';
import { readConfigFile } from '../../src/cli/dashboard-config-file.js';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { KEY_ACTIONS, THEMES } from '../../src/config/schema.js';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { renderDashboard } from '../helpers/dashboard.js';
import { tempDir } from '../helpers/fixtures.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// the built CLI (bin/appliance-admin.cjs), as a user runs it
beforeAll(ensureBuilt, 180_000);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
  for (const name of ['alpha-key', 'zulu-key'])
    expect((await s.call('POST', '/gateway/keys', { body: { name } })).status).toBe(201);
});
afterAll(() => s?.close());

/** No stored sign-in, no token variable: only what the test gives. */
const env = (): NodeJS.ProcessEnv => ({ XDG_CONFIG_HOME: tempDir('aa-config-home') });

/** A folder with config.yaml holding `text`, and token files beside it (mode 0600). */
function configDir(text: string, tokens: Record<string, string> = {}): { dir: string; file: string } {
  const dir = tempDir('aa-config');
  for (const [name, token] of Object.entries(tokens)) writeFileSync(join(dir, name), `${token}\n`, { mode: 0o600 });
  const file = join(dir, 'config.yaml');
  writeFileSync(file, text, { mode: 0o600 }); // only this user may write it, whatever the umask
  return { dir, file };
}

const refusal = async (text: string) => {
  const { file } = configDir(text);
  const err = await dashboardArgs(['--config', file], env()).then(
    () => null,
    (e: Error) => e,
  );
  expect(err?.name, text).toBe('UsageError');
  return err!.message.replace(`${file}: `, '');
};

describe('the dashboard config file', () => {
  it('sets the start screen, columns, sort, a : alias and the export folder, and the appliance', async () => {
    const { dir, file } = configDir(
      `default-appliance: local
appliances:
  local:
    url: ${s.url}
    token-file: local.token
screen: keys
aliases:
  x: audit
export-folder: exports
screens:
  keys:
    columns: [name, Status]
    sort: Name desc
`,
      { 'local.token': s.tokens.it_admin },
    );
    const parsed = await dashboardArgs(['--config', file], env());
    if (parsed === 'help') throw new Error('help');
    expect(parsed).toMatchObject({ url: s.url, token: s.tokens.it_admin, screen: 'keys', appliance: 'local' });
    const d = renderDashboard({ url: parsed.url, token: parsed.token, screen: parsed.screen, display: parsed.display });
    try {
      const f = await d.waitForText('alpha-key');
      const header = f.split('\n').find((l) => /\bName\b/.test(l))!;
      // only the columns named, in their order; sorted by Name, descending
      expect(header.trim()).toMatch(/^Name ▼\s+Status$/);
      expect(f.indexOf('zulu-key')).toBeLessThan(f.indexOf('alpha-key'));
      await d.press(':');
      await d.type('x'); // no screen's name starts with x
      await d.press('enter');
      await d.waitForText('[audit]');
      await d.press('w');
      const form = await d.waitForText('Export the audit trail');
      expect(form.replace(/\s*\n\s*│?\s*/g, '')).toContain(`Folder: ${join(dir, 'exports')}`);
      await d.press('esc');
    } finally {
      await d.unmount();
    }
  });

  it('refuses an unknown key with its path, exit 2, before the dashboard starts; never prints its value', async () => {
    const home = tempDir('aa-xdg');
    mkdirSync(join(home, 'appliance-admin'), { mode: 0o700 });
    const file = join(home, 'appliance-admin', 'config.yaml');
    writeFileSync(file, 'appliances:\n  prod:\n    url: https://prod.example\n    token: aat_never_printed\n', {
      mode: 0o600,
    });
    // found through XDG_CONFIG_HOME, as without --config
    const r = await runCli([], { env: { XDG_CONFIG_HOME: home } });
    expect(r.code).toBe(2);
    const known = 'url, token-file, ca-file, read-only, audit-key';
    const line = `${file}: appliances.prod.token: unknown key (the keys here are: ${known})`;
    expect(r.stderr).toBe(`appliance-admin: ${line}\n`);
    expect(r.stdout).toBe('');
    expect(await refusal('screen: keys\nbogus: 1\n')).toMatch(
      /^bogus: unknown key \(the keys here are: default-appliance,/,
    );
    expect(await refusal('keys:\n  frob: q\n')).toMatch(/^keys\.frob: expected an action: cursor-up, cursor-down,/);
    expect(await refusal('keys:\n  keys.frobnicate: q\n')).toBe('keys: no action "keys.frobnicate"');
  });

  it('refuses a wrong type or value with its path, and names the screens and columns it knows', async () => {
    expect(await refusal('appliances:\n  prod:\n    url: ftp://prod.example\n')).toBe(
      'appliances.prod.url: expected a URL (https://…)',
    );
    expect(await refusal('refresh: true\n')).toBe('refresh: expected an interval such as 2s, 500ms or 1m');
    expect(await refusal('refresh: 10ms\n')).toMatch(/^refresh: expected an interval between 200ms and 60m/);
    expect(await refusal('theme: blue\n')).toBe('theme: expected one of dark, light, high-contrast');
    expect(await refusal('notify: loud\n')).toBe('notify: expected one of off, bell, osc9');
    expect(await refusal('appliances:\n  p:\n    url: https://p.example\n    read-only: "yes"\n')).toBe(
      'appliances.p.read-only: expected true or false',
    );
    expect(await refusal('keys:\n  quit: [q, ctrl+]\n')).toMatch(/^keys\.quit\.1: expected a key such as q/);
    expect(await refusal('screen: nope\n')).toMatch(/^screen: no screen "nope" \(the screens are: overview, /);
    expect(await refusal('screens:\n  keys:\n    columns: [Name, Nope]\n')).toMatch(
      /^screens\.keys\.columns\.1: no column "Nope" \(the columns are: Name, Status,/,
    );
    expect(await refusal('screens:\n  audit:\n    sort: Action\n')).toBe(
      'screens.audit.sort: this list comes in the appliance order',
    );
    expect(await refusal('export-folder: "/tmp/\\e[2Jx"\n')).toBe(
      'export-folder: expected a path without control characters',
    );
    expect(await refusal('default-appliance: gone\n')).toBe('default-appliance: no appliance "gone" under appliances');
    // a key from the file is sanitized before it reaches the terminal
    expect(await refusal('"evil\\e]0;title\\a": 1\n')).toMatch(/^evil: unknown key/);
  });

  it('takes a binding for every action id it exports (a key or a list; [] unbinds), and every theme', async () => {
    const letters = 'abdefhilmnopqrtuvwyz0123456789';
    for (const theme of THEMES) {
      const keys = KEY_ACTIONS.map(
        (action, i) =>
          `  ${action}: ${i % 3 === 0 ? '[]' : i % 3 === 1 ? `ctrl+${letters[i]}` : `[alt+${letters[i]}, f]`}`,
      );
      // f is on both lists: the third of them would run two actions
      const distinct = keys.map((line, i) => (i % 3 === 2 ? line.replace(', f]', ']') : line));
      const { file } = configDir(`theme: ${theme}\nkeys:\n${distinct.join('\n')}\n`);
      const parsed = await dashboardArgs(['demo', '--config', file], env());
      if (parsed === 'help') throw new Error('help');
      expect(parsed.display.theme).toBe(theme);
      expect(parsed.display.keys).toMatchObject({ 'cursor-up': [], 'cursor-down': ['ctrl+b'], 'page-up': ['alt+d'] });
      expect(Object.keys(parsed.display.keys)).toEqual([...KEY_ACTIONS]);
      expect(await refusal(`keys:\n${keys.join('\n')}\n`)).toMatch(/^keys: "f" would run both page-up and /);
    }
  });

  it('rebinds quit: the new key quits, the old one no longer does; a key taken twice is refused naming both', async () => {
    const { file } = configDir('screen: keys\nkeys:\n  quit: ctrl+x\n  help: [K, "?"]\n  keys.revoke: X\n');
    const parsed = await dashboardArgs(['--config', file, '--url', s.url], {
      ...env(),
      APPLIANCE_ADMIN_TOKEN: s.tokens.it_admin,
    });
    if (parsed === 'help') throw new Error('help');
    const d = renderDashboard({ url: parsed.url, token: parsed.token, screen: parsed.screen, display: parsed.display });
    try {
      const f = await d.waitForText('alpha-key');
      // the hint line and help show the keys as bound
      expect(f).toMatch(/X revoke/);
      expect(f).toMatch(/Ctrl-X quit/);
      await d.press('q');
      expect(d.exited()).toBe(false);
      await d.write('\x18'); // Ctrl-X
      await d.waitFor(() => d.exited(), 'the dashboard to quit on Ctrl-X');
    } finally {
      await d.unmount();
    }
    // x revokes on the keys screen: quit cannot take it too
    expect(await refusal('keys:\n  quit: x\n')).toBe(
      'keys: "x" would run both quit and keys.revoke on the keys screen',
    );
  });

  it('rebinds an intent once for every screen: new: "+" is new key on keys and add on budgets', async () => {
    const { file } = configDir('screen: keys\nkeys:\n  new: "+"\n');
    const parsed = await dashboardArgs(['--config', file, '--url', s.url], {
      ...env(),
      APPLIANCE_ADMIN_TOKEN: s.tokens.it_admin,
    });
    if (parsed === 'help') throw new Error('help');
    const d = renderDashboard({ url: parsed.url, token: parsed.token, screen: parsed.screen, display: parsed.display });
    try {
      const f = await d.waitForText(/\+ new key/);
      expect(f).not.toMatch(/\bn new key/);
      await d.press('n');
      expect(d.frame()).not.toContain('Create a gateway key');
      await d.press('+');
      await d.waitForText('Create a gateway key');
      await d.press('esc');
      await d.waitFor((x) => !x.includes('Create a gateway key'), 'the form to close');
      await d.press(':');
      await d.type('budgets');
      await d.press('enter');
      await d.waitForText(/\+ add/);
    } finally {
      await d.unmount();
    }
    // the intent's new key meets the same checks as any rebinding
    expect(await refusal('keys:\n  new: x\n')).toMatch(/^keys: "x" would run both keys\.new-key and keys\.revoke/);
    expect(await refusal('keys:\n  create: "+"\n')).toMatch(
      /^keys\.create: expected an action: .*; an intent: new, edit/,
    );
  });

  it('gives the line and column of a YAML syntax error', async () => {
    expect(await refusal('screen: keys\nrefresh: [2s\n')).toMatch(/^line 3, column 1: Flow sequence/);
    expect(await refusal('screen: keys\ntheme: dark\ntheme: light\n')).toBe(
      'line 3, column 1: Map keys must be unique',
    );
  });

  it('--appliance NAME picks its URL, token file, CA file and read-only; default-appliance without flags', async () => {
    const { dir, file } = configDir(
      `default-appliance: lab
appliances:
  prod:
    url: https://prod.example
    token-file: prod.token
    ca-file: ca.pem
    read-only: true
  lab:
    url: https://lab.example
    token-file: ~/never-read-here.token
`,
      { 'prod.token': 'aat_prod' },
    );
    writeFileSync(join(dir, 'ca.pem'), 'PEM');
    const prod = await dashboardArgs(['--config', file, '--appliance', 'prod'], env());
    expect(prod).toMatchObject({ url: 'https://prod.example', token: 'aat_prod', readOnly: true, appliance: 'prod' });
    expect(prod !== 'help' && prod.ca?.toString()).toBe('PEM');
    // the default appliance, with the token from the variable (environment over file)
    const lab = await dashboardArgs(['--config', file], { ...env(), APPLIANCE_ADMIN_TOKEN: 'aat_env' });
    expect(lab).toMatchObject({ url: 'https://lab.example', token: 'aat_env', readOnly: false, appliance: 'lab' });
    await expect(dashboardArgs(['--config', file, '--appliance', 'nope'], env())).rejects.toThrow(
      `no appliance "nope" in ${file} (it names: prod, lab)`,
    );
    await expect(
      dashboardArgs(['--config', file, '--appliance', 'prod', '--url', 'https://x.example'], env()),
    ).rejects.toThrow('--appliance and --url both name the appliance');
  });

  it("an appliance's audit-key (beside the file) and --audit-key pin the audit key the dashboard checks the chain with", async () => {
    const { dir, file } = configDir(
      `default-appliance: prod
appliances:
  prod:
    url: https://prod.example
    token-file: prod.token
    audit-key: prod-audit.pem
  lab:
    url: https://lab.example
    token-file: prod.token
    audit-key: missing.pem
`,
      { 'prod.token': 'aat_prod' },
    );
    const pem =
      '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA3/H9AVJVeDD5UE8PfLVBBsOMmkNxmz/dyS8dO2Ef9X4=\n-----END PUBLIC KEY-----\n';
    writeFileSync(join(dir, 'prod-audit.pem'), pem);
    writeFileSync(join(dir, 'other.pem'), `${pem}${pem}`);
    writeFileSync(join(dir, 'not-a-key.pem'), 'hello');
    // the default appliance's key, by its path beside the config file, read as the dashboard starts
    expect(await dashboardArgs(['--config', file], env())).toMatchObject({
      appliance: 'prod',
      auditKey: { file: join(dir, 'prod-audit.pem'), pem },
    });
    // the flag over the file's; with --url (the default appliance left out) only the flag pins one
    expect(await dashboardArgs(['--config', file, '--audit-key', join(dir, 'other.pem')], env())).toMatchObject({
      auditKey: { file: join(dir, 'other.pem') },
    });
    const other = await dashboardArgs(
      ['--config', file, '--url', 'https://other.example', '--token-file', join(dir, 'prod.token')],
      env(),
    );
    expect(other !== 'help' && other.auditKey).toBeUndefined();
    // a key file that cannot be used stops the dashboard before it starts, naming it
    await expect(dashboardArgs(['--config', file, '--appliance', 'lab'], env())).rejects.toThrow(
      `cannot read the key file ${join(dir, 'missing.pem')}`,
    );
    await expect(dashboardArgs(['--config', file, '--audit-key', join(dir, 'not-a-key.pem')], env())).rejects.toThrow(
      `the key file ${join(dir, 'not-a-key.pem')} is not a PEM public key`,
    );
    await expect(dashboardArgs(['--config', file, '--audit-key', dir], env())).rejects.toThrow(
      `the key file ${dir} is not a regular file`,
    );
    // `:appliance NAME` starts again without the key pinned for this one
    expect(argvForAppliance(['--audit-key', 'a.pem', '--refresh', '1s', '--audit-key=b.pem'], 'lab')).toEqual([
      '--refresh',
      '1s',
      '--appliance',
      'lab',
    ]);
    // config shows it by its path
    const r = await runCli(['config', '--config', file]);
    expect(r.stdout).toContain(`audit-key: ${join(dir, 'prod-audit.pem')}\n`);
  });

  it('flags override the environment and the file', async () => {
    const { dir, file } = configDir(
      `default-appliance: prod
appliances:
  prod:
    url: https://prod.example
    token-file: prod.token
screen: keys
refresh: 10s
`,
      { 'prod.token': 'aat_prod', 'other.token': 'aat_other' },
    );
    expect(await dashboardArgs(['--config', file], env())).toMatchObject({ screen: 'keys', refreshMs: 10_000 });
    expect(
      await dashboardArgs(
        ['--config', file, '--screen', 'audit', '--refresh', '5s', '--token-file', join(dir, 'other.token')],
        env(),
      ),
    ).toMatchObject({ screen: 'audit', refreshMs: 5000, url: 'https://prod.example', token: 'aat_other' });
    // --appliance is a flag: its token file wins over the variable
    expect(
      await dashboardArgs(['--config', file, '--appliance', 'prod'], { ...env(), APPLIANCE_ADMIN_TOKEN: 'aat_env' }),
    ).toMatchObject({ token: 'aat_prod' });
    // --url leaves the default appliance out: its token never goes to another URL
    await expect(dashboardArgs(['--config', file, '--url', 'https://other.example'], env())).rejects.toThrow(
      /^no credential/,
    );
  });

  it('config init writes a commented file (0600, naming the schema) that loads back as the defaults', async () => {
    const dir = tempDir('aa-config-init');
    const file = join(dir, 'sub', 'config.yaml');
    const init = await runCli(['config', 'init', '--config', file]);
    expect([init.code, init.stdout]).toEqual([0, `wrote ${file}\n`]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    const schema = /^# yaml-language-server: \$schema=(.+)$/m.exec(text)?.[1];
    expect(schema).toBe(join(REPO, 'dist', 'config.schema.json'));
    expect(statSync(schema!).isFile()).toBe(true);
    const e = env();
    const argv = ['--url', 'https://a.example'];
    expect(effectiveSettings(argv, e, await readConfigFile(file, e))).toEqual(effectiveSettings(argv, e, undefined));

    const again = await runCli(['config', 'init', '--config', file]);
    expect([again.code, again.stderr]).toEqual([
      2,
      `appliance-admin: ${file} already exists; appliance-admin config init --force replaces it\n`,
    ]);
    writeFileSync(file, 'theme: light\n');
    expect((await runCli(['config', 'init', '--config', file, '--force'])).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('config prints the path and the effective settings, a token file by its path only', async () => {
    const { dir, file } = configDir(
      'appliances:\n  prod:\n    url: https://prod.example\n    token-file: prod.token\ntheme: light\n',
      { 'prod.token': 'aat_prod_secret' },
    );
    const r = await runCli(['config', '--config', file, '--appliance', 'prod', '--refresh', '500ms']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`# ${file}\nappliance: prod\nurl: https://prod.example\n`);
    expect(r.stdout).toContain(`token-file: ${join(dir, 'prod.token')}\n`);
    expect(r.stdout).toContain('refresh: 500ms\ntheme: light\n');
    expect(r.stdout + r.stderr).not.toContain('aat_prod_secret');
  });

  it('ships dist/config.schema.json, equal to what the zod schema generates', () => {
    const shipped = JSON.parse(readFileSync(join(REPO, 'dist', 'config.schema.json'), 'utf8')) as unknown;
    expect(shipped).toEqual(configJsonSchema());
    expect(configJsonSchema()).toMatchObject({ additionalProperties: false, title: 'appliance-admin config.yaml' });
  });
});
