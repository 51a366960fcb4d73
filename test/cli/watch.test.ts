import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, spawnCli, writeTokenFile, type CliProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { setupHostileFront } from '../helpers/hostile-front.js';
import { json } from '../helpers/hostile-server.js';
import { until } from '../helpers/until.js';
import { overviewScreen } from '../../screens/overview.js';
import { EMPTY_SCREEN_STATE } from '../../src/dashboard/kit/screen-state.js';
import { routedModel } from '../helpers/routed-model.js';

/** the overview's sources: a monitor's line counts them */
const SOURCES = overviewScreen.resources(EMPTY_SCREEN_STATE).length;

/**
 * Being told (issue 39): `get overview` answers a monitor (exit 0 OK, 1 WARNING, 2 CRITICAL,
 * 3 UNKNOWN) and `watch` prints a line per change of the board, against the real server (a small
 * appliance, no demo history) behind a scripted front that can cut the connection.
 *
 * A CRIT is made as an operator meets one: a workload is routed to a model whose file then goes
 * missing ("Model … missing from the appliance, but routed to by embed"); the file back clears it.
 */
const front = setupHostileFront({ before: ensureBuilt, timeoutMs: 60_000 });
let tokenFile: string;
const conn = (url = front.hostile.url) => [
  '--url',
  url,
  '--token-file',
  (tokenFile ??= writeTokenFile(front.server.tokens.it_admin)),
];

const model = routedModel(() => front.server);
const CRIT_NEW =
  /CRIT new: Model Mistral 7B Instruct: missing from the appliance, but routed to by (\w+, )*embed · now/;
const CLEARED = /OK cleared \(was CRIT\): Model Mistral 7B Instruct/;

const running: CliProcess[] = [];
function watch(args: string[], env: NodeJS.ProcessEnv = {}) {
  const w = spawnCli(['watch', '--refresh', '300ms', ...args], { env });
  running.push(w);
  return w;
}
afterEach(async () => {
  for (const w of running.splice(0)) {
    w.child.kill('SIGKILL');
    await w.done;
  }
  front.hostile.clear();
  await model.mendIfBroken();
});
/** Waits for the watch to have printed `re`; a timeout quotes what it printed. */
async function printed(w: CliProcess, what: string, re: RegExp, timeoutMs = 15_000) {
  try {
    return await until(what, () => re.exec(w.stdout()), timeoutMs);
  } catch (err) {
    throw new Error(`${(err as Error).message}\nstdout: ${w.stdout()}\nstderr: ${w.stderr()}`);
  }
}
const firstBoard = (w: CliProcess) =>
  until('the first board read', () => w.stderr().includes('first board read'), 20_000);

describe('get overview: the monitoring-plugins convention', () => {
  it('0 OK on a quiet appliance, 2 CRITICAL with a CRIT line, 1 WARNING with a WARN only; --json gives the same codes', async () => {
    const ok = await runCli(['get', 'overview', ...conn()]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout.split('\n')[0]).toBe(
      `APPLIANCE OK - nothing needs attention | crit=0;;;0 warn=0;;;0 unknown=0;;;0;${SOURCES}`,
    );
    // the board follows as before, for a person reading the monitor's long output
    expect(ok.stdout).toMatch(/State\s+What\s+Reason/);

    await model.break();
    const crit = await runCli(['get', 'overview', ...conn()]);
    expect(crit.code).toBe(2);
    expect(crit.stdout.split('\n')[0]).toMatch(/^APPLIANCE CRITICAL - 1 critical \| crit=1;;;0 warn=0;;;0 /);
    expect(crit.stdout).toMatch(/✕ CRIT\s+Model Mistral 7B Instruct/);
    const critJson = await runCli(['get', 'overview', '--json', ...conn()]);
    expect(critJson.code).toBe(2);
    expect((JSON.parse(critJson.stdout) as { key: string }[]).map((l) => l.key)).toContain('model:mistral-7b');
    await model.mend();

    // an auditor's refused change: a denied attempt, which the board counts as a WARN for a day
    expect(
      (await front.server.call('PUT', '/routing/chat', { role: 'auditor', body: { model_id: null } })).status,
    ).toBe(403);
    const warn = await runCli(['get', 'overview', ...conn()]);
    expect(warn.code, warn.stdout).toBe(1);
    expect(warn.stdout.split('\n')[0]).toMatch(/^APPLIANCE WARNING - 1 warning \| crit=0;;;0 warn=1;;;0 /);
  }, 60_000);

  it('3 UNKNOWN when it cannot read the appliance: not reached, token refused, nothing answering, bad usage', async () => {
    // each run is a process of its own: they go at once
    const nope = writeTokenFile('nope');
    const [down, refused, refusedJson, usage, otherScreen] = await Promise.all([
      runCli(['get', 'overview', ...conn('http://127.0.0.1:1')]),
      runCli(['get', 'overview', '--url', front.hostile.url, '--token-file', nope]),
      runCli(['get', 'overview', '--json', '--url', front.hostile.url, '--token-file', nope]),
      runCli(['get', 'overview', '--no-such-option', ...conn()]),
      runCli(['get', 'models', '--no-such-option']),
    ]);
    expect(down.code).toBe(3);
    expect(down.stdout).toMatch(/^APPLIANCE UNKNOWN - could not read the appliance: cannot reach the appliance/);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/^APPLIANCE UNKNOWN - could not read the appliance: .*credential/);
    // --json: the codes are the same, stdout stays JSON or empty
    expect(refusedJson.code).toBe(3);
    expect(refusedJson.stdout).toBe('');
    // a monitor reads exit 2 as CRITICAL: bad usage of get overview is UNKNOWN
    expect(usage.code).toBe(3);
    expect(usage.stdout).toMatch(/^APPLIANCE UNKNOWN - bad usage: /);
    // other screens keep get's own codes
    expect(otherScreen.code).toBe(2);

    // every resource answers 503: a board of "not read" lines is UNKNOWN, never OK
    front.hostile.set(
      '*',
      json({ type: 'about:blank', title: 'Unavailable', status: 503, code: 'SVC-ADMIN-503' }, 503),
    );
    const blind = await runCli(['get', 'overview', ...conn()]);
    expect(blind.code).toBe(3);
    expect(blind.stdout.split('\n')[0]).toBe(
      `APPLIANCE UNKNOWN - could not read the appliance: none of its ${SOURCES} sources read | crit=0;;;0 warn=0;;;0 unknown=${SOURCES};;;0;${SOURCES}`,
    );
    front.hostile.clear();
  }, 60_000);
});

describe('appliance-admin watch', () => {
  it('prints a line when a CRIT appears and when it clears, and stops cleanly on SIGTERM', async () => {
    const w = watch(conn());
    await firstBoard(w);
    await model.break();
    await printed(w, 'the new CRIT', CRIT_NEW);
    await model.mend();
    await printed(w, 'the CRIT cleared', CLEARED);
    const lines = w.stdout().trim().split('\n');
    // one line per change, each with its time
    expect(lines.filter((l) => /Mistral/.test(l))).toHaveLength(2);
    for (const l of lines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ /);
    w.child.kill('SIGTERM');
    const end = await w.done;
    expect(end.code).toBe(0);
    expect(end.stderr).toMatch(/appliance-admin watch: stopped/);
    expect(end.stdout + end.stderr).not.toContain(front.server.tokens.it_admin);
  }, 60_000);

  it('--json prints one object per change; --exec gets it on stdin, without the token, and a slow or failing command does not stop the watch', async () => {
    const dir = tempDir('aa-exec');
    const got = join(dir, 'got.jsonl');
    // the new CRIT's command hangs (stopped at --exec-timeout), the clear's fails: the watch goes on
    const cmd = `printf '%s|' "$APPLIANCE_ADMIN_EVENT" "$APPLIANCE_ADMIN_TOKEN" >> ${got}; cat >> ${got}; [ "$APPLIANCE_ADMIN_EVENT" = new ] && sleep 30; echo "no pager here" >&2; exit 4`;
    const w = watch(['--json', '--exec', cmd, '--exec-timeout', '500ms', '--url', front.hostile.url], {
      APPLIANCE_ADMIN_TOKEN: front.server.tokens.it_admin,
    });
    await firstBoard(w);
    await model.break();
    const events = () =>
      w
        .stdout()
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const created = await until('the new CRIT as JSON', () => events().find((e) => e.key === 'model:mistral-7b'));
    expect(created).toMatchObject({
      event: 'new',
      severity: 'crit',
      was: null,
      what: 'Model Mistral 7B Instruct',
      window: 'now',
      link: { screen: 'models', select: 'mistral-7b' },
      while_blind: false,
    });
    await model.mend();
    const cleared = await until('the clear as JSON', () =>
      events().find((e) => e.key === 'model:mistral-7b' && e.event === 'cleared'),
    );
    expect(cleared).toMatchObject({ severity: 'ok', was: 'crit' });
    await until(
      'both handed to --exec',
      () => existsSync(got) && readFileSync(got, 'utf8').includes('"event":"cleared"'),
    );
    const handed = readFileSync(got, 'utf8').trim().split('\n');
    // the event's JSON as printed, after the event name and an empty token
    const mine = (event: string) => handed.find((l) => l.startsWith(`${event}||`) && l.includes('model:mistral-7b'));
    expect(mine('new')?.slice('new||'.length)).toBe(JSON.stringify(created));
    expect(mine('cleared')?.slice('cleared||'.length)).toBe(JSON.stringify(cleared));
    await until('the failures said', () => /--exec failed for cleared CRIT/.test(w.stderr()));
    expect(w.stderr()).toMatch(
      /--exec did not finish within 0\.5 s for new CRIT Model Mistral 7B Instruct: stopped; the watch goes on/,
    );
    expect(w.stderr()).toMatch(/\(exit 4\); it said: no pager here; the watch goes on/);
    expect(w.stdout() + w.stderr()).not.toContain(front.server.tokens.it_admin);
  }, 60_000);

  it('says once that the appliance cannot be read, and when it can again, how long it was blind and what changed meanwhile', async () => {
    const w = watch(conn());
    await firstBoard(w);
    const printedBefore = w.stdout();
    // the connection cut at every request: nothing can be read
    const tries = () => front.hostile.requests.filter((r) => r === 'GET /deployment').length;
    const triesBefore = tries();
    front.hostile.set('*', (req) => void req.socket.destroy());
    await printed(w, 'the loss said', /appliance not readable: .*; last read \S+Z; trying again with backoff/);
    // what happens while it is blind
    await model.break();
    // tried again (after 1 s, then 2 s more), still blind: said once
    await until('a second try', () => tries() >= triesBefore + 2, 15_000);
    expect(w.stdout().match(/not readable/g)).toHaveLength(1);
    front.hostile.clear();
    const back = await printed(
      w,
      'the return said',
      /appliance readable again after \d+ s blind \(from \S+Z, the last read\); 1 change since, against the last state seen:\n.*CRIT new: Model Mistral 7B Instruct.*\[while blind\]/,
      30_000,
    );
    expect(back).toBeTruthy();
    expect(w.stdout().slice(printedBefore.length)).not.toMatch(/cleared/);
  }, 60_000);
});
