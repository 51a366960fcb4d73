/** What can go wrong talking to the appliance, as three distinct kinds the UI words differently. */

export interface InvalidParam {
  name: string;
  reason: string;
}

/** The appliance answered with an error (RFC 9457 problem+json, or anything non-2xx). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string | undefined,
    readonly requestId: string | undefined,
    readonly invalidParams: InvalidParam[] = [],
    readonly retryAfterSeconds?: number,
  ) {
    super(detail ? `${title}: ${detail}` : title);
  }
}

export type TransportKind =
  'refused' | 'timeout' | 'tls' | 'dns' | 'reset' | 'too-large' | 'protocol' | 'aborted' | 'other';

/** The request never got a usable answer: connection, TLS, timeout, size cap, unparseable body. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: TransportKind,
    message: string,
    readonly causeCode?: string,
  ) {
    super(message);
  }
}

/** TransportError.causeCode of an answer that is not from this API (a redirect, another server's page or JSON). */
export const NOT_THIS_API = 'NOT_THIS_API';
export const REDIRECTED = 'REDIRECTED';

/** The answer parsed but does not fit the contract (kept visible, never a crash). */
export interface SchemaIssue {
  path: string;
  message: string;
}

const KIND_BY_CODE: Record<string, TransportKind> = {
  ECONNREFUSED: 'refused',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  UND_ERR_ABORTED: 'aborted',
  // the connection was ended under the request (ApiClient.abandon: the dashboard quits)
  UND_ERR_DESTROYED: 'aborted',
  ABORT_ERR: 'aborted',
  UND_ERR_RES_EXCEEDED_MAX_SIZE: 'too-large',
  EHOSTUNREACH: 'refused',
  ENETUNREACH: 'refused',
};

const PLAIN: Record<TransportKind, string> = {
  refused: 'cannot reach the appliance (connection refused)',
  timeout: 'the appliance did not answer in time',
  tls: 'the TLS handshake failed',
  dns: 'the appliance host name does not resolve',
  reset: 'the connection to the appliance was closed',
  'too-large': 'the answer was larger than the client accepts',
  protocol: 'the appliance answered with something that is not valid JSON',
  aborted: 'the request was cancelled',
  other: 'the request failed',
};

/** Maps whatever undici or Node threw into a TransportError. */
export function toTransportError(err: unknown): TransportError {
  if (err instanceof TransportError) return err;
  const e = err as { code?: string; name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  let kind: TransportKind = (code && KIND_BY_CODE[code]) || 'other';
  if (e?.name === 'AbortError') kind = 'aborted';
  if (
    kind === 'other' &&
    code &&
    (/^ERR_TLS|CERT|SSL/.test(code) || /certificate|self.signed|SSL|TLS/i.test(e?.message ?? ''))
  )
    kind = 'tls';
  if (kind === 'other' && code?.startsWith('HPE_'))
    return new TransportError('protocol', `the appliance's answer is not valid HTTP (${code})`, code);
  if (kind === 'tls') return new TransportError(kind, tlsWords(code, e?.message), code);
  return new TransportError(kind, code ? `${PLAIN[kind]} (${code})` : PLAIN[kind], code);
}

// Node 24 appends advice about its own --use-system-ca flag, which is not how the dashboard trusts
// an appliance's CA (--ca-file says that): left out.
const NODE_CA_ADVICE = /;\s*if the root CA is installed locally, try running Node\.js with --use-system-ca\.?$/;

/** A certificate the client cannot verify says how to trust it; other TLS failures say what failed. */
function tlsWords(code: string | undefined, message: string | undefined): string {
  const why = message ? `: ${message.replace(NODE_CA_ADVICE, '')}` : '';
  const untrusted =
    /UNABLE_TO_VERIFY|SELF_SIGNED|UNABLE_TO_GET_ISSUER|CERT_UNTRUSTED/.test(code ?? '') ||
    /self.signed|unable to (verify|get)/i.test(message ?? '');
  if (untrusted)
    return `the appliance's TLS certificate is not trusted${why} (if the appliance uses its own CA, give it with --ca-file)`;
  if (/ALTNAME|HOSTNAME/.test(code ?? '')) return `the appliance's TLS certificate is for another host name${why}`;
  if (/EXPIRED|NOT_YET_VALID/.test(code ?? '')) return `the appliance's TLS certificate is not valid now${why}`;
  return `${PLAIN.tls}${why}`;
}

/** Words for any error, for a banner or a dialog: what happened, then the code and request id. */
export function describeError(err: unknown): { headline: string; code?: string; requestId?: string; lines: string[] } {
  if (err instanceof ApiError) {
    const lines = err.invalidParams.map((p) => `${p.name}: ${p.reason}`);
    if (err.retryAfterSeconds !== undefined) lines.push(`retry after ${err.retryAfterSeconds} s`);
    return { headline: plainStatus(err), code: err.code, requestId: err.requestId, lines };
  }
  if (err instanceof TransportError) return { headline: err.message, code: `transport/${err.kind}`, lines: [] };
  const e = err as Error;
  return { headline: e?.message ? String(e.message) : String(err), lines: [] };
}

function plainStatus(err: ApiError): string {
  const base = (() => {
    if (err.code === 'SVC-BOUNDARY-1')
      return 'Refused at the metadata boundary: the request carried content, and only metadata may leave the appliance';
    switch (err.status) {
      case 400:
        return 'The appliance rejected the request as invalid';
      case 401:
        return 'The appliance did not accept the credential (token unknown, expired or revoked)';
      case 403:
        return 'Not allowed: your role may not do this';
      case 404:
        return 'Not found';
      case 405:
        return 'Not allowed on this resource';
      case 409:
        return 'Conflict with the current state';
      case 413:
        return 'The request was too large';
      case 422:
        return 'The appliance could not apply this request';
      case 429:
        return 'Too many requests';
      case 502:
        return 'Bad gateway: a proxy in front of the appliance got no answer from it';
      case 503:
        return 'The appliance cannot do this right now';
      case 504:
        return 'Gateway timeout: a proxy in front of the appliance gave up waiting for it';
      default:
        return err.status >= 500
          ? 'The appliance failed to handle the request'
          : `The appliance answered ${err.status}`;
    }
  })();
  return err.detail ? `${base}: ${err.detail}` : base;
}
