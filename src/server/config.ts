import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { ConnectorKind, CURRENCY_PATTERN, MAX_PRICE_PER_MILLION, PRICE_DECIMALS, Role } from '../contract/index.js';
import { parseVerifierKey } from '../audit-chain/note.js';
import { forwardTarget } from './audit-forward/target.js';

const Id = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, . _ -');

/** Where a connector source reads from. A `remote` source needs a driver this host does not have. */
const Source = z.strictObject({
  id: Id,
  name: z.string().min(1),
  type: z.enum(['directory', 'sqlite', 'remote']),
  /** directory or SQLite file (relative paths are relative to the config file) */
  path: z.string().optional(),
  /** remote endpoint, shown in the failure reason */
  url: z.string().optional(),
});
export type SourceConfig = z.infer<typeof Source>;

const Connector = z.strictObject({
  id: Id,
  name: z.string().min(1),
  kind: ConnectorKind,
  enabled: z.boolean().default(true),
  rbac_labels: z.array(z.string()).default([]),
  sources: z.array(Source).min(1),
});
export type ConnectorConfig = z.infer<typeof Connector>;

const ModelEntry = z.strictObject({
  id: Id,
  name: z.string().min(1),
  family: z.string().min(1),
  parameters: z.number().int().min(0).nullable().default(null),
  quantization: z.string().nullable().default(null),
  /** file or directory holding the weights; the model is present when it exists */
  path: z.string(),
});

const Limit = z.number().int().min(0).nullable();

const isLoopbackHost = (host: string) => host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
/** Where the identity provider's signing keys come from: over plain http anyone on the path could serve their own. */
export const isSecureProviderUrl = (url: URL) =>
  url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
const IdentityProviderUrl = z.url().refine(
  (u) => !URL.canParse(u) || isSecureProviderUrl(new URL(u)), // not a URL at all: z.url() has said so
  'must be an https URL (plain http only for a loopback host)',
);

const Milliseconds = z.number().int().min(100).max(3_600_000);
const HTTP_LIMIT_DEFAULTS = {
  request_timeout_ms: 30_000,
  headers_timeout_ms: 10_000,
  idle_timeout_ms: 72_000,
  max_connections: 512,
};
const HttpLimits = z
  .strictObject({
    /** headers and body of one request must have arrived within this, else 408 and the connection is closed */
    request_timeout_ms: Milliseconds.default(HTTP_LIMIT_DEFAULTS.request_timeout_ms),
    headers_timeout_ms: Milliseconds.default(HTTP_LIMIT_DEFAULTS.headers_timeout_ms),
    /** a connection with nothing sent either way for this long is closed (keep-alive included) */
    idle_timeout_ms: Milliseconds.default(HTTP_LIMIT_DEFAULTS.idle_timeout_ms),
    /** connections beyond this are closed as soon as they are accepted */
    max_connections: z.number().int().min(1).max(100_000).default(HTTP_LIMIT_DEFAULTS.max_connections),
  })
  .refine((h) => h.headers_timeout_ms <= h.request_timeout_ms, {
    message: 'must not be longer than request_timeout_ms',
    path: ['headers_timeout_ms'],
  });

/**
 * Requests that write the audit trail, per caller (http/rate-limit.ts): a token bucket of `burst`
 * requests, refilled at `per_second`. The defaults are the values docs/operations.md states.
 */
const RATE_LIMIT_DEFAULTS = { burst: 60, per_second: 1 };
const RateLimit = z.strictObject({
  /** requests one caller may send at once */
  burst: z.number().int().min(1).max(1_000_000).default(RATE_LIMIT_DEFAULTS.burst),
  /** and then on average per second */
  per_second: z.number().min(0.001).max(1_000_000).default(RATE_LIMIT_DEFAULTS.per_second),
});

/**
 * Where every audit entry is copied, off the host (audit-forward/): a syslog receiver over TLS
 * (RFC 5425), or plain TCP to a loopback address only (tests, a local relay). The files are read
 * at start: a missing or unreadable one stops the server with its name.
 */
const AUDIT_FORWARD_SCHEMES = ['syslog-tls:', 'syslog-tcp:'];
export const AuditForward = z
  .strictObject({
    /** syslog-tls://host:6514, or syslog-tcp://127.0.0.1:port for a receiver on this machine */
    url: z
      .string()
      .refine((u) => URL.canParse(u), 'must be a URL such as syslog-tls://logs.example.net:6514')
      .refine(
        (u) => !URL.canParse(u) || AUDIT_FORWARD_SCHEMES.includes(new URL(u).protocol),
        'must start with syslog-tls:// (or syslog-tcp:// for a loopback receiver)',
      )
      .refine(
        (u) => !URL.canParse(u) || new URL(u).protocol !== 'syslog-tcp:' || new URL(u).port !== '',
        'syslog-tcp:// needs a port',
      )
      .refine(
        (u) => !URL.canParse(u) || new URL(u).protocol !== 'syslog-tcp:' || isLoopbackHost(new URL(u).hostname),
        'plain syslog-tcp:// only to a loopback address (127.0.0.1, [::1], localhost): use syslog-tls:// beyond it',
      )
      .refine(
        (u) => !URL.canParse(u) || (!new URL(u).username && !new URL(u).password && !new URL(u).search),
        'must hold no user, password or query',
      ),
    /** the CA (PEM) that signed the receiver's certificate; the system's CAs when absent */
    ca_file: z.string().min(1).optional(),
    /** the name the receiver's certificate must carry; the URL's host when absent */
    server_name: z.string().min(1).optional(),
    /** a client certificate and key (PEM) for a receiver that asks for one (both or neither) */
    cert_file: z.string().min(1).optional(),
    key_file: z.string().min(1).optional(),
    /** syslog facility: authpriv (10) by default, as security and authorization messages are */
    facility: z.number().int().min(0).max(23).default(10),
    /** entries behind, or seconds the oldest unforwarded entry has waited, before /deployment says degraded */
    warn_behind_entries: z.number().int().min(1).default(1000),
    warn_after_seconds: z.number().int().min(1).default(60),
  })
  .refine((f) => Boolean(f.cert_file) === Boolean(f.key_file), {
    message: 'cert_file and key_file go together: give both, or neither',
    path: ['cert_file'],
  });
export type AuditForwardConfig = z.infer<typeof AuditForward>;

const PricePerMillion = z
  .number()
  .min(0)
  .max(MAX_PRICE_PER_MILLION)
  .refine(
    (n) => Math.abs(n * 10 ** PRICE_DECIMALS - Math.round(n * 10 ** PRICE_DECIMALS)) < 1e-6,
    `at most ${PRICE_DECIMALS} decimal places`,
  );
/**
 * What the gateway's calls cost (gateway/pricing.ts): one currency, and a price per model per million
 * input and output tokens. A model absent here is unpriced: its calls are counted as such, never as
 * free; a local model that costs nothing says so with two zeros.
 */
const Pricing = z.strictObject({
  currency: z.string().regex(CURRENCY_PATTERN, 'an ISO 4217 code such as EUR or USD'),
  models: z
    .record(
      z.string().min(1).max(200),
      z.strictObject({ input_per_million: PricePerMillion, output_per_million: PricePerMillion }),
    )
    .default({}),
});

export const ServerConfig = z.strictObject({
  appliance: z
    .strictObject({ name: z.string().default('appliance'), site: z.string().optional() })
    .default({ name: 'appliance' }),
  connectors: z.array(Connector).default([]),
  channels: z
    .array(z.strictObject({ id: Id, name: z.string().min(1), enabled: z.boolean().default(true) }))
    .default([]),
  models: z.array(ModelEntry).default([]),
  /** a directory scanned for more models: each entry (file or folder) is one model */
  models_dir: z.string().optional(),
  default_model: z.string().optional(),
  /** prices of the models' tokens; absent: no currency, every model unpriced, no key budget can be set */
  pricing: Pricing.optional(),
  workloads: z.array(z.strictObject({ id: Id, model_id: z.string().nullable().default(null) })).default([]),
  budgets: z
    .strictObject({ tokens_per_run: Limit, tool_calls_per_run: Limit, seconds_per_run: Limit, tokens_per_day: Limit })
    .partial()
    .default({}),
  requirements: z
    .strictObject({
      cpus: z.number().int().min(1).default(2),
      memory_bytes: z
        .number()
        .int()
        .min(0)
        .default(8 * 2 ** 30),
      disk_free_bytes: z
        .number()
        .int()
        .min(0)
        .default(20 * 2 ** 30),
      accelerators: z.number().int().min(0).default(0),
    })
    .default({ cpus: 2, memory_bytes: 8 * 2 ** 30, disk_free_bytes: 20 * 2 ** 30, accelerators: 0 }),
  identity_test: z
    .strictObject({
      /** lab only: allow http:// targets */
      allow_http: z.boolean().default(false),
      /** lab only: allow loopback, private and link-local targets */
      allow_private_addresses: z.boolean().default(false),
      timeout_ms: z.number().int().min(100).max(60_000).default(5000),
      max_bytes: z
        .number()
        .int()
        .min(1024)
        .max(16 * 2 ** 20)
        .default(2 ** 20),
    })
    .default({ allow_http: false, allow_private_addresses: false, timeout_ms: 5000, max_bytes: 2 ** 20 }),
  /** how long a client may take and how many may be connected: slow or stalled clients must not hold the server */
  http: HttpLimits.default(HTTP_LIMIT_DEFAULTS),
  /** how many requests that write the audit trail one caller may send: a flood must not fill the trail */
  rate_limit: RateLimit.default(RATE_LIMIT_DEFAULTS),
  /** a copy of every audit entry to a syslog receiver off the host; off when absent */
  audit_forward: AuditForward.optional(),
  /**
   * the witnesses whose cosignatures the appliance keeps, as verifier keys (name+keyid+base64, type 4);
   * absent: any witness's (at most 15 per checkpoint, first come)
   */
  audit_witnesses: z
    .array(
      z
        .string()
        .max(1024)
        .refine((k) => typeof parseVerifierKey(k) !== 'string', 'must be a witness verifier key (NAME+KEYID+BASE64)'),
    )
    .max(15)
    .optional(),
  sso: z
    .strictObject({
      issuer: IdentityProviderUrl,
      audience: z.string().min(1),
      /** defaults to the issuer's discovered jwks_uri */
      jwks_uri: IdentityProviderUrl.optional(),
      role_claim: z.string().default('roles'),
      subject_claim: z.string().default('sub'),
      /** claim value -> role; a claim value equal to a role name maps to itself */
      role_map: z.record(z.string(), Role).default({}),
      client_id: z.string().optional(),
      client_secret: z.string().optional(),
    })
    .optional(),
});
export type ServerConfig = z.infer<typeof ServerConfig>;

class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates a JSON config file; relative paths in it resolve against its folder. */
export function loadConfig(file: string | undefined): ServerConfig {
  if (!file) return ServerConfig.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`cannot read config ${file}: ${(err as Error).message}`);
  }
  const parsed = ServerConfig.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(`invalid config ${file}: ${first?.path.join('.') || '(root)'}: ${first?.message}`);
  }
  const cfg = resolvePaths(parsed.data, dirname(resolve(file)));
  // its files are read now, before the server writes anything (the server reads them again at start)
  if (cfg.audit_forward) forwardTarget(cfg.audit_forward);
  return cfg;
}

function resolvePaths(cfg: ServerConfig, base: string): ServerConfig {
  const abs = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(base, p));
  return {
    ...cfg,
    models_dir: abs(cfg.models_dir),
    audit_forward: cfg.audit_forward && {
      ...cfg.audit_forward,
      ca_file: abs(cfg.audit_forward.ca_file),
      cert_file: abs(cfg.audit_forward.cert_file),
      key_file: abs(cfg.audit_forward.key_file),
    },
    models: cfg.models.map((m) => ({ ...m, path: abs(m.path)! })),
    connectors: cfg.connectors.map((c) => ({ ...c, sources: c.sources.map((s) => ({ ...s, path: abs(s.path) })) })),
  };
}
