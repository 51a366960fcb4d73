import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, DEFAULT_TIMEOUT_MS } from '../../src/client/api-client.js';
import { TransportError } from '../../src/client/errors.js';
import { setupHostileFront } from '../helpers/hostile-front.js';
import { renderDashboard, type DashboardHarness } from '../helpers/dashboard.js';
import {
  huge,
  json,
  NGINX_502,
  resetMidBody,
  stall,
  stallBody,
  text,
  trickle,
  type Reply,
} from '../helpers/hostile-server.js';

/**
 * Issue 5, point 1 (hostile half): answers a real appliance would not send, from a loopback
 * server in front of a real one. For each: no crash, the error in plain words, the last data
 * kept, and recovery at the first poll after the fault ends.
 */
const REFRESH_MS = 200;
const TIMEOUT_MS = 300;
const DEADLINE_MS = 1000;

let d: DashboardHarness | undefined;
let channelsBody: string;
/** started first, awaited last: the defaults bound a silent appliance without any option */
let defaultHeaders: Promise<{ err: unknown; ms: number }>;
let defaultBody: Promise<{ err: unknown; ms: number }>;

const timed = async (p: Promise<unknown>) => {
  const t0 = Date.now();
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  return { err, ms: Date.now() - t0 };
};

const front = setupHostileFront();
beforeAll(async () => {
  channelsBody = (await front.server.call('GET', '/channels?limit=500')).text;
  front.hostile.set('/models', stall());
  front.hostile.set(
    '/routing',
    stallBody(JSON.stringify({ data: [], next_cursor: null, has_more: false, pad: 'x'.repeat(200) })),
  );
  // two clients: one connection each, so the second stall does not queue behind the first
  defaultHeaders = timed(
    new ApiClient({ url: front.hostile.url, token: front.server.tokens.auditor }).call('listModels'),
  );
  defaultBody = timed(
    new ApiClient({ url: front.hostile.url, token: front.server.tokens.auditor }).call('listRouting'),
  );
});
afterEach(async () => {
  front.hostile.set('/channels', null);
  await d?.unmount();
  d = undefined;
});

const header = (f: string) => f.split('\n').slice(0, 2).join('\n');
/** The frame as one line: the banner wraps long words onto a second line. */
const oneLine = (f: string) => f.replace(/\s+/g, ' ');

async function openChannels(): Promise<DashboardHarness> {
  const dash = renderDashboard({
    url: front.hostile.url,
    token: front.server.tokens.it_admin,
    screen: 'channels',
    refreshMs: REFRESH_MS,
    timeoutMs: TIMEOUT_MS,
    deadlineMs: DEADLINE_MS,
  });
  await dash.waitFor((f) => f.includes('Web chat') && f.includes('● connected'), 'channels loaded');
  return dash;
}

/** The shell still takes keys: help opens and closes. */
async function stillResponds(dash: DashboardHarness) {
  await dash.press('?');
  await dash.waitForText('Help · Esc or ? to close');
  await dash.press('esc');
  await dash.waitFor((f) => !f.includes('Help · Esc'), 'help closed');
}

/**
 * Serves `reply` for GET /channels until the plain words appear, checks the last data is kept
 * and the shell works, then restores the real answer and times the recovery.
 */
async function fault(reply: Reply, words: RegExp, opts: { connectionLost?: boolean } = {}) {
  d = await openChannels();
  front.hostile.set('/channels', reply);
  const f = await d.waitFor((x) => words.test(oneLine(x)), `the words ${words}`, 8000);
  expect(f).toContain('Web chat'); // the last data stays
  expect(header(f)).toContain('✕ STALE');
  if (opts.connectionLost) expect(oneLine(f)).toMatch(/✕ connection lost: .*showing the last data/);
  else {
    expect(f).toMatch(/✕ ERROR loading channels \(showing the last data\)/);
    expect(header(f)).toContain('● connected'); // an unreadable answer is not a lost connection
  }
  expect(d.crashed()).toBeNull();
  await stillResponds(d);

  front.hostile.set('/channels', null);
  const back = Date.now();
  const { retryAt } = d.deps.resources.getState().connection;
  // the first poll after the fault ends succeeds: after the backoff countdown, if any, plus one interval
  const bound = Math.max(back, retryAt ?? 0) - back + REFRESH_MS + DEADLINE_MS + 1500;
  await d.waitFor(
    (x) => !x.includes('✕') && /● connected/.test(header(x)) && /updated (?:just now|\d+ s ago)/.test(header(x)),
    'recovery',
    bound + 2000,
  );
  expect(Date.now() - back).toBeLessThanOrEqual(bound);
  expect(d.frame()).toContain('Web chat');
  expect(d.crashed()).toBeNull();
}

describe('the dashboard against hostile answers', () => {
  it('a stall (no headers): times out in plain words', async () => {
    await fault(stall(), /connection lost: the appliance did not answer in time \(UND_ERR_HEADERS_TIMEOUT\)/, {
      connectionLost: true,
    });
  });

  it('headers, then a silent body: times out', async () => {
    await fault(stallBody(channelsBody), /the appliance did not answer in time \(UND_ERR_BODY_TIMEOUT\)/, {
      connectionLost: true,
    });
  });

  it('a trickling body (never idle long enough for a timeout) is cut by the deadline', async () => {
    await fault(trickle(channelsBody, 20), /the appliance did not send its whole answer within 1 s/, {
      connectionLost: true,
    });
  });

  it('a connection reset mid-body', async () => {
    await fault(resetMidBody(channelsBody), /connection lost: the connection to the appliance was closed/, {
      connectionLost: true,
    });
  });

  it('malformed JSON: that resource fails, the connection stays up', async () => {
    await fault(
      json('{"data": [{"id": "chan_web", "name": "We'),
      /✕ ERROR loading channels \(showing the last data\): the answer to GET \/channels is not valid JSON code transport\/protocol/,
    );
    // the banner says what kind of problem, with a code to quote
  });

  it('10 MB with Content-Length, and 10 MB chunked: the size cap refuses both', async () => {
    await fault(huge(10 * 1024 * 1024, true), /the answer is larger than 8388608 bytes; refused/);
    await d!.unmount();
    await fault(huge(10 * 1024 * 1024, false), /the answer is larger than 8388608 bytes; refused/);
  });

  it('an HTML 502 page from a proxy: plain words, not markup', async () => {
    await fault(
      text(502, 'text/html', NGINX_502),
      /Bad gateway: a proxy in front of the appliance got no answer from it: 502 Bad Gateway \(an HTML page from a proxy, not the appliance's answer\) code HTTP-502/,
    );
    expect(d!.allFrames()).not.toMatch(/<center>|<html>|<\/?h1>/);
  });

  it('an HTML page with 200 (a sign-in portal): named as such', async () => {
    await fault(
      text(200, 'text/html; charset=utf-8', '<!doctype html><title>Sign in</title><form>…</form>'),
      /the answer to GET \/channels is an HTML page, not JSON \(a proxy or sign-in page in between\?\)/,
    );
  });

  it('a problem+json 503 with Retry-After: plain words, code and request id', async () => {
    await fault(
      json(
        {
          type: 'about:blank',
          title: 'Service Unavailable',
          status: 503,
          code: 'SVC-ADMIN-503',
          detail: 'maintenance window',
          request_id: 'req_hostile503',
        },
        503,
        { 'retry-after': '5' },
      ),
      /The appliance cannot do this right now: maintenance window \(retry after 5 s\) code SVC-ADMIN-503 · request req_hostile503/,
    );
  });

  it('wrong types: drawn anyway, with a contract warning', async () => {
    d = await openChannels();
    front.hostile.set(
      '/channels',
      json({
        data: [{ id: 7, name: { first: 'Web' }, enabled: 'sometimes', extra: [1, 2] }, null, 'x'],
        has_more: 'no',
        next_cursor: 42,
      }),
    );
    const f = await d.waitForText('does not fit the contract', 5000);
    expect(f).toMatch(/▲ the answer for channels does not fit the contract \(\d+ issues?\)/);
    expect(f).toContain('{"first":"Web"}');
    expect(d.crashed()).toBeNull();
    await d.press('down', 'down', 'enter');
    await d.waitForText('Detail:');
    await d.press('esc');
    await stillResponds(d);
    front.hostile.set('/channels', null);
    await d.waitFor((x) => x.includes('Web chat') && !x.includes('does not fit'), 'recovery');
  });

  it('JSON nested 200,000 deep: cut, not a stack overflow', async () => {
    d = await openChannels();
    front.hostile.set(
      '/channels',
      json(
        `{"data":[{"id":"deep","name":"Deep","enabled":true,"junk":${'['.repeat(200_000)}${']'.repeat(200_000)}}],"has_more":false}`,
      ),
    );
    await d.waitFor((f) => f.includes('Deep') && !f.includes('Web chat'), 'the deep answer drawn');
    await d.press('enter');
    const f = await d.waitForText('Detail: deep');
    expect(f).toContain('(nested too deeply)');
    expect(d.crashed()).toBeNull();
    await d.press('esc');
    front.hostile.set('/channels', null);
    await d.waitForText('Web chat');
  });

  it('the default timeouts are bounded: a silent appliance is given up on within the default, with no option set', async () => {
    expect(new ApiClient({ url: front.hostile.url, token: 't' })).toMatchObject({
      timeoutMs: DEFAULT_TIMEOUT_MS,
      deadlineMs: 3 * DEFAULT_TIMEOUT_MS,
    });
    expect(DEFAULT_TIMEOUT_MS).toBeLessThanOrEqual(10_000);
    const [headers, body] = await Promise.all([defaultHeaders, defaultBody]);
    for (const [r, code] of [
      [headers, 'UND_ERR_HEADERS_TIMEOUT'],
      [body, 'UND_ERR_BODY_TIMEOUT'],
    ] as const) {
      expect(r.err).toBeInstanceOf(TransportError);
      expect((r.err as TransportError).kind).toBe('timeout');
      expect((r.err as TransportError).causeCode).toBe(code);
      expect(r.ms).toBeGreaterThanOrEqual(DEFAULT_TIMEOUT_MS - 500);
      expect(r.ms).toBeLessThan(DEFAULT_TIMEOUT_MS + 3000);
    }
  }, 20_000);
});
