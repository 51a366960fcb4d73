import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { UsageError } from '../config/usage-error.js';
import { printErr, printOut } from './print.js';
import { parseApplianceUrl } from '../client/appliance-url.js';
import { plainHttpRefusal } from '../client/transport-policy.js';
import {
  AuthSessionError,
  currentSession,
  explainAuthFailure,
  getAccessToken,
  login,
  renderQr,
  type DevicePrompt,
  type SessionInfo,
} from '../client/session/index.js';
import { commandAt } from './command-table/index.js';
import { helpText } from './command-table/help.js';

export const LOGIN_USAGE = helpText(commandAt(['login']));

/**
 * Human instructions go to stderr, so they show even when stdout is redirected. The code, the
 * pages, names, roles and error descriptions come from the identity provider or the appliance.
 */
const say = printErr;

export async function loginCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      scope: { type: 'string' },
      audience: { type: 'string' },
      resource: { type: 'string' },
      url: { type: 'string' },
      'ca-file': { type: 'string' },
      'insecure-http': { type: 'boolean', default: false },
      qr: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowNegative: true,
    strict: true,
  });
  if (values.help) {
    console.log(LOGIN_USAGE);
    return 0;
  }
  let previous: SessionInfo | null = null;
  try {
    previous = currentSession();
  } catch {
    // an unsafe or damaged file is replaced by this sign-in
  }
  const fromPrevious = !values.issuer && !values['client-id'] && previous ? previous.settings : undefined;
  const issuer = values.issuer ?? fromPrevious?.issuer;
  const clientId = values['client-id'] ?? fromPrevious?.clientId;
  if (!issuer || !clientId) throw new UsageError(`--issuer URL and --client-id ID are required\n${LOGIN_USAGE}`);
  const applianceUrl = values.url ?? fromPrevious?.applianceUrl;
  // Before anything is signed in or sent: the new token goes to this appliance (GET /session).
  if (applianceUrl) checkApplianceUrl(applianceUrl, values['insecure-http']);
  const ca = values['ca-file'] ? readCa(values['ca-file']) : undefined;

  try {
    const who = await login({
      issuer,
      clientId,
      scope: values.scope ?? fromPrevious?.scope,
      audience: values.audience ?? fromPrevious?.audience,
      resource: values.resource ?? fromPrevious?.resource,
      applianceUrl,
      onPrompt: (prompt) => showPrompt(prompt, values.qr),
    });
    const name =
      who.name && who.name !== who.subject ? `${who.name} (${who.subject})` : (who.subject ?? 'an unnamed account');
    printOut(`Signed in as ${name} at ${who.issuer}.`);
    if (!who.canRenew)
      say('The identity provider gave no refresh token: you will have to sign in again when this sign-in expires.');
    if (who.applianceUrl) printOut(await applianceRole(who.applianceUrl, ca));
    return 0;
  } catch (err) {
    if (err instanceof AuthSessionError) {
      say(`appliance-admin login: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

/** QR code first, then the page and code under it, so on a 24-line terminal nothing scrolls away. */
function showPrompt(p: DevicePrompt, qr: boolean | undefined) {
  const until = p.expiresAt.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const lines =
    qr === false ? [] : renderQr(p.verificationUriComplete ?? p.verificationUri, { color: !process.env.NO_COLOR });
  const width = lines.length ? [...lines[0].replace(/\x1b\[[0-9;]*m/g, '')].length : 0;
  // Drawn only on a terminal wide enough unless --qr asks for it: in a log file it is noise.
  const showQr =
    lines.length > 0 && (qr === true || (Boolean(process.stderr.isTTY) && width <= (process.stderr.columns ?? 80)));
  if (showQr) {
    say('To sign in, scan this with a phone');
    // drawn here from the URL, its colour sequences our own: written as they are
    for (const line of lines) process.stderr.write(`${line}\n`);
    say(`or open ${p.verificationUri}`);
  } else {
    say(`To sign in, open ${p.verificationUri}`);
  }
  say(`and enter the code:  ${p.userCode}`);
  if (!showQr && p.verificationUriComplete && p.verificationUriComplete !== p.verificationUri) {
    say(`(or open ${p.verificationUriComplete}, which has the code filled in)`);
  }
  say(`Waiting for the approval (the code is valid until ${until}; Ctrl-C to stop)…`);
}

/** The same rules as get, export and the dashboard: a well-formed URL, and no plain http beyond this machine unless allowed. */
function checkApplianceUrl(url: string, insecureHttp: boolean): void {
  try {
    parseApplianceUrl(url);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const refusal = plainHttpRefusal(url, insecureHttp);
  if (refusal) throw new UsageError(refusal);
}

function readCa(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch {
    throw new UsageError(`cannot read the CA file ${file}`);
  }
}

/** Asks the appliance's GET /session which role it gives the new sign-in, in one line. */
async function applianceRole(url: string, ca: Buffer | undefined): Promise<string> {
  const base = url.replace(/\/+$/, '').replace(/\/v1\/admin$/, '');
  const dispatcher = ca ? new Agent({ connect: { ca } }) : undefined;
  try {
    const res = await request(`${base}/v1/admin/session`, {
      headers: { authorization: `Bearer ${await getAccessToken()}`, accept: 'application/json' },
      dispatcher,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const body = (await res.body.json().catch(() => undefined)) as
      { role?: string; detail?: string; code?: string } | undefined;
    if (res.statusCode === 200 && body?.role) return `The appliance ${base} gives you the role ${body.role}.`;
    const why = explainAuthFailure(res.statusCode, body, 'session');
    return why
      ? `The appliance ${base} answered: ${why.title}. ${why.message}`
      : `The appliance ${base} answered ${res.statusCode}${body?.detail ? `: ${body.detail}` : ''}.`;
  } catch (err) {
    if (err instanceof AuthSessionError) return `Could not ask the appliance ${base}: ${err.message}`;
    return `Could not reach the appliance ${base} to check the role: ${(err as Error).message}`;
  } finally {
    await dispatcher?.close();
  }
}
