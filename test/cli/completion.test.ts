import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ensureBuilt } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * Issue 42 §3: `appliance-admin completion bash|zsh|fish`, from the command table. Bash is run for
 * real with the printed script and its COMPREPLY read; zsh's and fish's scripts are parsed by
 * those shells (Debian's zsh and fish packages).
 */
const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

describe('shell completions', () => {
  const dir = tempDir('completion');
  const bin = join(dir, 'bin');
  const xdg = join(dir, 'xdg');
  const scripts: Record<string, string> = {};

  beforeAll(async () => {
    await ensureBuilt();
    // the script calls the program it completes, as a user's PATH finds it
    mkdirSync(bin);
    symlinkSync(CLI, join(bin, 'appliance-admin'));
    // a config file naming two appliances, one with credentials in its URL that must never show
    mkdirSync(join(xdg, 'appliance-admin'), { recursive: true, mode: 0o700 });
    writeFileSync(
      join(xdg, 'appliance-admin', 'config.yaml'),
      [
        'appliances:',
        '  lab:',
        '    url: https://lab.example.com:8443',
        '    token-file: /secret/lab.token',
        '  production:',
        '    url: https://admin:hunter2@prod.example.com',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await runCli(['completion', shell]);
      expect(r.code, r.stderr).toBe(0);
      scripts[shell] = join(dir, `appliance-admin.${shell}`);
      writeFileSync(scripts[shell], r.stdout);
    }
  }, 120_000);

  /** What bash offers for the words typed (the last one being completed), with the printed script loaded. */
  function bashOffers(...words: string[]): string[] {
    const program = [
      `source ${JSON.stringify(scripts.bash)}`,
      `COMP_WORDS=(appliance-admin ${words.map((w) => `'${w}'`).join(' ')})`,
      `COMP_CWORD=${words.length}`,
      `COMP_LINE="\${COMP_WORDS[*]}"`,
      '_appliance_admin',
      `printf '%s\\n' "\${COMPREPLY[@]}"`,
    ].join('\n');
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', program], {
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir, XDG_CONFIG_HOME: xdg },
      encoding: 'utf8',
      cwd: dir,
    });
    return out.split('\n').filter(Boolean);
  }

  it('bash: commands, then subcommands', () => {
    expect(bashOffers('')).toEqual(expect.arrayContaining(['demo', 'get', 'keys', 'audit', 'completion']));
    expect(bashOffers('')).not.toContain('__complete');
    expect(bashOffers('ke')).toEqual(['keys']);
    expect(bashOffers('audit', 'verify-')).toEqual(['verify-proof']);
    expect(bashOffers('keys', '')).toEqual(['rotate', 'expire', 'unused', 'budget', 'near-budget']);
  });

  it("bash: a command's options, and an option's fixed values", () => {
    expect(bashOffers('get', '--r')).toEqual(['--range']);
    expect(bashOffers('get', '--range', '')).toEqual(['hour', 'day', 'week', 'month']);
    expect(bashOffers('keys', 'rotate', '--g')).toEqual(['--grace']);
    expect(bashOffers('--theme', 'l')).toEqual(['light']);
    expect(bashOffers('completion', '')).toEqual(['bash', 'zsh', 'fish']);
    // an option given once is not offered again
    expect(bashOffers('get', '--json', '--js')).toEqual([]);
  });

  it("bash: screen names, for get's SCREEN and the dashboard's --screen", () => {
    expect(bashOffers('get', 'ov')).toEqual(['overview']);
    expect(bashOffers('get', '')).toEqual(expect.arrayContaining(['overview', 'keys', 'audit', 'spend']));
    expect(bashOffers('--screen', 'spe')).toEqual(['spend']);
  });

  it('bash: appliance names from the config file in XDG_CONFIG_HOME, and from --config', () => {
    expect(bashOffers('--appliance', '')).toEqual(['lab', 'production']);
    expect(bashOffers('watch', '--appliance', 'p')).toEqual(['production']);
    const other = join(dir, 'other.yaml');
    writeFileSync(other, 'appliances:\n  staging:\n    url: https://staging.example.com\n', { mode: 0o600 });
    expect(bashOffers('--config', other, '--appliance', '')).toEqual(['staging']);
  });

  it('bash: file names where the option takes a file', () => {
    writeFileSync(join(dir, 'pinned-key.pem'), '');
    expect(bashOffers('audit', 'verify', '--key', 'pinned-')).toEqual(['pinned-key.pem']);
  });

  it('__complete prints names only: never a URL, a token file or anything else of the config file', async () => {
    const r = await runCli(['__complete', '--appliance', ''], { env: { XDG_CONFIG_HOME: xdg } });
    expect(r).toEqual({ code: 0, stdout: 'lab\nproduction\n:\n', stderr: '' });
    // a config file the dashboard would refuse (others may write it) gives no names, and no error
    const loose = join(dir, 'loose.yaml');
    writeFileSync(loose, 'appliances:\n  x:\n    url: https://x.example.com\n');
    chmodSync(loose, 0o666);
    const refused = await runCli(['__complete', '--config', loose, '--appliance', '']);
    expect(refused).toEqual({ code: 0, stdout: ':\n', stderr: '' });
  });

  it('__complete is not help: a --help among the words is a word of the line being typed', async () => {
    const r = await runCli(['__complete', 'get', '--help', 'ov']);
    expect(r.stdout).toBe('overview\n:\n');
  });

  it('completion without a known shell is bad usage (exit 2) and names the shells', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bash, zsh, fish/);
  });

  it.skipIf(!has('zsh'))(
    'zsh: the script parses (zsh -n) (skipped when zsh is not installed: Debian package zsh)',
    () => {
      execFileSync('zsh', ['-n', scripts.zsh]);
      expect(readFileSync(scripts.zsh, 'utf8').split('\n')[0]).toBe('#compdef appliance-admin');
    },
  );

  it.skipIf(!has('fish'))(
    'fish: the script parses (fish -n) and completes a command, a screen, an appliance (skipped when fish is not installed: Debian package fish)',
    () => {
      execFileSync('fish', ['-n', scripts.fish]);
      const offers = (line: string) =>
        execFileSync('fish', ['--no-config', '-c', `source ${scripts.fish}; complete -C '${line}'`], {
          env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir, XDG_CONFIG_HOME: xdg },
          encoding: 'utf8',
        })
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0]);
      expect(offers('appliance-admin ke')).toEqual(['keys']);
      expect(offers('appliance-admin get ov')).toEqual(['overview']);
      expect(offers('appliance-admin --appliance ')).toEqual(['lab', 'production']);
    },
  );
});
