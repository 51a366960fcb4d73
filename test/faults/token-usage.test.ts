import { beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, REPO } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * Issue 5, point 6 (tokens): documented usage never puts a token on a command line, where `ps`
 * and the shell history would keep it; token files others can read are refused, by every
 * command that connects, with words that say how to fix it and without echoing the token.
 */
beforeAll(async () => {
  await ensureBuilt();
}, 120_000);

/** What puts a token on a command line: an option with the value, a Bearer header, a literal. */
const TOKEN_ON_COMMAND_LINE: [string, RegExp][] = [
  ['a --token option with a value', /--token(?![-\w])(?:\s+|=)\S/],
  ['a bearer token in a header argument', /Bearer\s+(?:\$\{?\w|[A-Za-z0-9._~+/-]{16,})/],
  ['a literal token assigned to APPLIANCE_ADMIN_TOKEN', /APPLIANCE_ADMIN_TOKEN=(?!\s|\$\(|"\$\(|$)\S/],
  ['a literal admin token or key secret', /\b(?:aat|agk)_[A-Za-z0-9_-]{16,}/],
  ["curl's --oauth2-bearer", /--oauth2-bearer\s/],
];

function offences(text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      TOKEN_ON_COMMAND_LINE.filter(([, re]) => re.test(line)).map(([what]) => `line ${i + 1}: ${what}: ${line.trim()}`),
    );
}

/** The README and the docs/ pages it links, where the documented usage now lives. */
const DOCUMENTS = ['README.md', ...readdirSync(join(REPO, 'docs')).map((f) => join('docs', f))].filter((f) =>
  f.endsWith('.md'),
);

/** The commands in a document's shell blocks: output lines (`# …`) and trailing comments dropped. */
function documentedCommands(file: string): string {
  const text = readFileSync(join(REPO, file), 'utf8');
  const blocks = [...text.matchAll(/```(?:sh|bash|shell|console)?\n([\s\S]*?)```/g)].map((m) => m[1]);
  return blocks
    .flatMap((b) => b.split('\n'))
    .filter((l) => !/^\s*#/.test(l))
    .map((l) => l.replace(/\s+#\s.*$/, ''))
    .join('\n');
}

describe('documented usage keeps tokens off the command line', () => {
  it('the patterns catch what they should (so a pass means something)', () => {
    for (const bad of [
      'appliance-admin --token abc',
      'curl -H "Authorization: Bearer $TOKEN" $URL',
      'curl -H "Authorization: Bearer aat_0123456789abcdefXYZ"',
      'APPLIANCE_ADMIN_TOKEN=aat_secret npx appliance-admin',
      'curl --oauth2-bearer x',
    ]) {
      expect(offences(bad), bad).not.toEqual([]);
    }
    for (const good of [
      'appliance-admin --token-file ~/.aa-token',
      'curl -H @$HOME/.aa-auth $URL',
      'APPLIANCE_ADMIN_TOKEN=$(cat ~/.aa-token) npx appliance-admin --url https://a',
      "sed 's/^/Authorization: Bearer /' ~/.aa-token > ~/.aa-auth",
    ]) {
      expect(offences(good), good).toEqual([]);
    }
  });

  it.each(DOCUMENTS)('%s: no command puts a token on its command line', (file) => {
    const commands = documentedCommands(file);
    if (file === 'README.md' || file === 'docs/api.md') expect(commands).toContain('appliance-admin'); // blocks found
    expect(offences(commands)).toEqual([]);
    expect(offences(readFileSync(join(REPO, file), 'utf8').replace(/```[\s\S]*?```/g, ''))).toEqual([]); // nor the prose
  });

  it('--help of every command: no token option; the connecting ones name --token-file and APPLIANCE_ADMIN_TOKEN', async () => {
    const runs = await Promise.all(
      [
        ['--help'],
        ['--url', 'https://127.0.0.1:9', '--help'],
        ['get', '--help'],
        ['export', '--help'],
        ['serve', '--help'],
        ['token', '--help'],
        ['login', '--help'],
        ['logout', '--help'],
        ['keys', '--help'],
      ].map(async (args) => ({ args, ...(await runCli(args)) })),
    );
    for (const r of runs) {
      expect(r.code, `${r.args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(offences(r.stdout), r.args.join(' ')).toEqual([]);
    }
    for (const r of [...runs.slice(1, 4), runs.at(-1)!]) {
      expect(r.stdout, r.args.join(' ')).toContain('--token-file FILE');
      expect(r.stdout, r.args.join(' ')).toContain('APPLIANCE_ADMIN_TOKEN');
    }
  });

  it('a token given as an option is refused, and not echoed', async () => {
    const r = await runCli(['--url', 'https://127.0.0.1:9', '--token', 'aat_typed-on-the-command-line']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Unknown option '--token'/);
    expect(r.stderr + r.stdout).not.toContain('aat_typed-on-the-command-line');
  });
});

describe('token files wider than 0600', () => {
  it('are refused by the dashboard, get and export alike, with the fix in the message and the token not echoed', async () => {
    const file = writeTokenFile('aat_must-not-be-echoed');
    chmodSync(file, 0o644);
    const conn = ['--url', 'https://127.0.0.1:9', '--token-file', file];
    const runs = await Promise.all(
      [
        conn,
        ['get', 'channels', ...conn],
        ['keys', 'unused', ...conn],
        ['export', 'audit', '-o', join(tempDir('aa-export'), 'never-written.csv'), ...conn],
      ].map((a) => runCli(a)),
    );
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `the token file ${file} is readable by group or others (mode 0644); run: chmod 600 ${file}`,
      );
      expect(r.stderr + r.stdout).not.toContain('aat_must-not-be-echoed');
    }
  });
});
