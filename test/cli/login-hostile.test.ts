import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { tempDir } from '../helpers/fixtures.js';
import { json, startHostile, type HostileServer } from '../helpers/hostile-server.js';
import { startHostileProvider, type HostileProvider } from '../helpers/hostile-oidc.js';

/**
 * `login` and `logout` print what the identity provider and the appliance send: the code, the
 * pages, who signed in, the role, an error's description. From a hostile provider and appliance
 * on loopback, none of their escape sequences or control characters may reach the terminal.
 */
// an OSC window title, a clear screen (7-bit and 8-bit CSI), a right-to-left override
const HOSTILE = '\x1b]0;owned title\x07\x1b[2J\x9b2J\u202e';
// anything that could steer a terminal; only our own line breaks may remain
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

let appliance: HostileServer;
let provider: HostileProvider | undefined;
let out: { stdout: string; stderr: string };

beforeAll(async () => {
  appliance = await startHostile();
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  appliance.clear();
  await provider?.close();
  provider = undefined;
});
afterAll(async () => {
  await appliance?.close();
});

/** Runs the CLI in this process with its output captured and its config in a fresh directory. */
async function run(argv: string[], config: string): Promise<number> {
  vi.stubEnv('XDG_CONFIG_HOME', config);
  out = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    vi.spyOn(process[stream], 'write').mockImplementation(
      ((chunk: string | Uint8Array) => ((out[stream] += String(chunk)), true)) as typeof process.stdout.write,
    );
  }
  try {
    return await main(argv);
  } finally {
    vi.restoreAllMocks();
  }
}

const login = (issuer: string, extra: string[] = []) => [
  'login',
  '--issuer',
  issuer,
  '--client-id',
  'aa-cli',
  '--no-qr',
  ...extra,
];

describe('login and logout with a hostile identity provider and appliance', () => {
  it('the code, the pages, the name and the role are printed without their escape sequences; so is the name at logout', async () => {
    provider = await startHostileProvider({
      userCode: `WDJB-${HOSTILE}MJHT`,
      verificationUri: (issuer) => `${issuer}/device${HOSTILE}`,
      verificationUriComplete: (issuer) => `${issuer}/device?code=${HOSTILE}X`,
      name: `Mallory${HOSTILE}\nSigned in as root`,
    });
    appliance.set('/session', json({ subject: 'hostile-subject', role: `it_admin${HOSTILE}`, capabilities: [] }));
    const config = tempDir('aa-xdg');
    expect(await run(login(provider.issuer, ['--url', appliance.url]), config)).toBe(0);
    expect(out.stdout + out.stderr).not.toMatch(CONTROL);
    const lines = out.stderr.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `To sign in, open ${provider.issuer}/device`,
      'and enter the code:  WDJB-MJHT',
      `(or open ${provider.issuer}/device?code=X, which has the code filled in)`,
    ]);
    expect(lines.slice(3)).toEqual([expect.stringMatching(/^Waiting for the approval \(the code is valid until /), '']);
    expect(out.stdout).toBe(
      `Signed in as Mallory Signed in as root (hostile-subject) at ${provider.issuer}.\nThe appliance ${appliance.url} gives you the role it_admin.\n`,
    );

    const file = join(config, 'appliance-admin', 'session.json');
    expect(await run(['logout'], config)).toBe(0);
    expect(out.stdout).toBe(
      `Signed out of ${provider.issuer} (Mallory Signed in as root): removed ${file}; the identity provider revoked the refresh token.\n`,
    );
    expect(existsSync(file)).toBe(false);
  });

  it("an OAuth error's code and description are printed without their escape sequences", async () => {
    provider = await startHostileProvider({
      userCode: 'WDJB-MJHT',
      tokenError: { error: `invalid_client${HOSTILE}`, error_description: `no ${HOSTILE}way` },
    });
    const config = tempDir('aa-xdg');
    expect(await run(login(provider.issuer), config)).toBe(1);
    expect(out.stdout + out.stderr).not.toMatch(CONTROL);
    expect(out.stderr.trimEnd().split('\n').at(-1)).toBe(
      'appliance-admin login: the device sign-in failed: the identity provider answered invalid_client (no way)',
    );
    expect(existsSync(join(config, 'appliance-admin', 'session.json'))).toBe(false);
  });

  it("the appliance's refusal (its detail) is printed without its escape sequences", async () => {
    provider = await startHostileProvider({ userCode: 'WDJB-MJHT', name: 'Mallory' });
    appliance.set(
      '/session',
      json(
        { type: 'about:blank', title: 'Forbidden', status: 403, detail: `no role in claim "groups"${HOSTILE}` },
        403,
      ),
    );
    expect(await run(login(provider.issuer, ['--url', appliance.url]), tempDir('aa-xdg'))).toBe(0);
    expect(out.stdout + out.stderr).not.toMatch(CONTROL);
    expect(out.stdout.split('\n')[1]).toMatch(
      /^The appliance http:\/\/127\.0\.0\.1:\d+ answered: Signed in, but without a role on this appliance\. .*\(no role in claim "groups"\)\. Ask/,
    );
  });
});
