import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { checkAddress } from './address-policy.js';

/** The identity test's outbound policy (config.identity_test). */
export interface OutboundPolicy {
  allow_http: boolean;
  allow_private_addresses: boolean;
  timeout_ms: number;
  max_bytes: number;
}

/** A target that passed the guard: the name and the exact addresses it may connect to. */
export interface CheckedTarget {
  url: URL;
  addresses: LookupAddress[];
}

export type Outcome<T> = { ok: true; value: T; detail: string } | { ok: false; detail: string };

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');
const describeAddresses = (a: LookupAddress[]) => a.map((x) => x.address).join(', ');

function lookupAll(host: string, signal: AbortSignal): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => {
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve(addresses);
    });
  });
}

/**
 * Scheme, name resolution and address policy for one URL. Every address the name resolves to
 * must be allowed: a name that mixes a public and a private address is refused.
 */
export async function checkTarget(
  url: URL,
  policy: OutboundPolicy,
  signal: AbortSignal,
): Promise<Outcome<CheckedTarget>> {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allow_http)) {
    return {
      ok: false,
      detail: `refused: ${url.protocol.slice(0, -1)} is not allowed, only https (the server allows http only when configured for a lab)`,
    };
  }
  if (url.username || url.password) return { ok: false, detail: 'refused: the URL carries credentials' };
  const host = hostOf(url);
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAll(host, signal);
  } catch (err) {
    if (signal.aborted) return { ok: false, detail: `could not resolve ${host} within ${policy.timeout_ms} ms` };
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      detail: `could not resolve ${host}: ${code === 'ENOTFOUND' ? 'no such host' : (code ?? (err as Error).message)}`,
    };
  }
  if (addresses.length === 0) return { ok: false, detail: `could not resolve ${host}: no addresses` };
  for (const a of addresses) {
    const verdict = checkAddress(a.address, policy.allow_private_addresses);
    if (!verdict.allowed) {
      const via = a.address === host ? '' : ` (${host} resolves to ${a.address})`;
      return {
        ok: false,
        detail: `refused: ${a.address} is ${verdict.reason}${via}; the identity test connects only to public addresses`,
      };
    }
  }
  const allowed = isIP(host)
    ? `${host} is an allowed address`
    : `${host} resolves to ${describeAddresses(addresses)}, all allowed`;
  return { ok: true, value: { url, addresses }, detail: allowed };
}

/** A lookup that answers only the addresses already checked, so a second DNS answer (rebinding) is never used. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  }) as unknown as LookupFunction;
}

export interface FetchedBody {
  status: number;
  contentType: string;
  body: Buffer;
}

function describeError(err: unknown, target: CheckedTarget, policy: OutboundPolicy, signal: AbortSignal): string {
  if (signal.aborted) return `no complete answer within ${policy.timeout_ms} ms`;
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e.code ?? e.cause?.code;
  const where = `${target.url.host} (${describeAddresses(target.addresses)})`;
  if (code === 'ECONNREFUSED') return `connection refused by ${where}`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return `connection to ${where} was reset`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return `could not connect to ${where} within ${policy.timeout_ms} ms`;
  if (code && /CERT|SSL|TLS|SELF_SIGNED|ERR_TLS/.test(code)) return `TLS failed with ${where}: ${code} (${e.message})`;
  return `request to ${where} failed: ${code ? `${code} ` : ''}${e.message}`;
}

/**
 * GET a checked target: connects only to its checked addresses (keeping the name for the Host
 * header and TLS), follows no redirect, stops at policy.timeout_ms and policy.max_bytes.
 */
export async function fetchChecked(
  target: CheckedTarget,
  policy: OutboundPolicy,
  signal: AbortSignal,
  accept: string,
): Promise<Outcome<FetchedBody>> {
  const agent = new Agent({
    connect: { lookup: pinnedLookup(target.addresses), timeout: policy.timeout_ms },
    connections: 1,
    pipelining: 0,
  });
  try {
    const res = await request(target.url, {
      method: 'GET',
      dispatcher: agent,
      signal,
      headers: { accept, 'accept-encoding': 'identity', 'user-agent': 'appliance-admin identity-test' },
    });
    // an abandoned body reports its abort as an error; nobody needs to hear it
    res.body.on('error', () => {});
    const contentType = String(res.headers['content-type'] ?? '');
    if (res.statusCode >= 300 && res.statusCode < 400) {
      res.body.destroy();
      const location = String(res.headers.location ?? '(no Location header)').slice(0, 300);
      return { ok: false, detail: `answered ${res.statusCode} redirecting to ${location}; redirects are not followed` };
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      res.body.destroy();
      return { ok: false, detail: `answered HTTP ${res.statusCode}` };
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > policy.max_bytes) {
      res.body.destroy();
      return { ok: false, detail: `the answer is ${declared} bytes, over the ${policy.max_bytes}-byte limit` };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > policy.max_bytes) {
        res.body.destroy();
        return { ok: false, detail: `the answer exceeds the ${policy.max_bytes}-byte limit; reading stopped` };
      }
      chunks.push(chunk as Buffer);
    }
    return {
      ok: true,
      value: { status: res.statusCode, contentType, body: Buffer.concat(chunks) },
      detail: `HTTP ${res.statusCode}, ${size} bytes`,
    };
  } catch (err) {
    return { ok: false, detail: describeError(err, target, policy, signal) };
  } finally {
    agent.destroy().catch(() => {});
  }
}

/** checkTarget then fetchChecked, under one time budget; for URLs found inside a document. */
export async function guardedGet(url: URL, policy: OutboundPolicy, accept: string): Promise<Outcome<FetchedBody>> {
  const signal = AbortSignal.timeout(policy.timeout_ms);
  const target = await checkTarget(url, policy, signal);
  if (!target.ok) return target;
  return fetchChecked(target.value, policy, signal, accept);
}
