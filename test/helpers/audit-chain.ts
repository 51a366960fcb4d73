import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * A chained audit trail and signed checkpoints made straight from the scheme
 * (docs/audit-chain.md) with node:crypto and the `canonicalize` package, independently of the
 * verifier under test and of the server.
 */
export type Entry = Record<string, unknown> & { seq: number; prev_hash: string; hash: string };

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function entryHash(e: Record<string, unknown>): string {
  const rest = { ...e };
  delete rest.hash;
  return sha256(canonicalize(rest)!);
}

/** `count` entries of the served shape, chained from #1. */
export function chainedTrail(count: number, detailsOf: (i: number) => Record<string, unknown> = () => ({})): Entry[] {
  const out: Entry[] = [];
  let prev = '0'.repeat(64);
  for (let seq = 1; seq <= count; seq++) {
    const e = {
      id: `aud_${String(seq).padStart(8, '0')}`,
      at: new Date(Date.UTC(2026, 10, 1) + seq * 1000).toISOString(),
      actor: { subject: seq % 3 ? 'alice-admin' : 'svc-siem-export', role: seq % 3 ? 'it_admin' : 'auditor' },
      action: seq % 2 ? 'gateway.key.create' : 'audit.export',
      target: { type: 'gateway_key', id: seq % 5 ? `key_${seq}` : null, name: seq % 4 ? `key ${seq}` : null },
      outcome: 'success',
      status: 200,
      request_id: `req-${seq}`,
      source_ip: seq % 7 ? '127.0.0.1' : null,
      details: detailsOf(seq),
      seq,
      prev_hash: prev,
    } as Record<string, unknown>;
    const hash = entryHash(e);
    out.push({ ...e, hash } as Entry);
    prev = hash;
  }
  return out;
}

/** Re-chains entries after an edit, as a forger with database access would. */
export function rehash(entries: Entry[]): Entry[] {
  let prev = '0'.repeat(64);
  return entries.map((e) => {
    const next = { ...e, prev_hash: prev } as Entry;
    next.hash = entryHash(next);
    prev = next.hash;
    return next;
  });
}

export interface SigningKey {
  privateKey: KeyObject;
  publicKeyPem: string;
  fingerprint: string;
}

export function signingKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return {
    privateKey,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    fingerprint: createHash('sha256')
      .update(der.subarray(der.length - 32))
      .digest('hex'),
  };
}

export function checkpointOf(entry: Entry, key: SigningKey, at = '2026-11-26T12:00:00Z') {
  const payload = Buffer.from(canonicalize({ at, hash: entry.hash, seq: entry.seq })!, 'utf8');
  return {
    seq: entry.seq,
    hash: entry.hash,
    at,
    signature: sign(null, payload, key.privateKey).toString('base64'),
    key_fingerprint: key.fingerprint,
  };
}

export const jsonl = (entries: unknown[]) => entries.map((e) => JSON.stringify(e)).join('\n') + '\n';

/**
 * The appliance's signed statement of an export holding `entries` (docs/audit-chain.md, "Export
 * statements"), made straight from the scheme: canonicalize and node:crypto, not the server's code.
 */
export function statementOf(
  entries: Entry[],
  key: SigningKey,
  o: { head?: Entry; filters?: Record<string, string>; format?: 'csv' | 'jsonl'; at?: string } = {},
) {
  const first = entries[0];
  const last = entries[entries.length - 1];
  const contiguous = entries.length === 0 || last.seq - first.seq + 1 === entries.length;
  const digest = createHash('sha256');
  for (const e of entries) digest.update(Buffer.from(e.hash, 'hex'));
  const head = o.head ?? last;
  const statement = {
    type: 'audit-export',
    version: 1,
    at: o.at ?? '2026-11-26T12:00:00Z',
    request_id: 'req_statement',
    format: o.format ?? 'jsonl',
    filters: o.filters ?? {},
    head: { seq: head.seq, hash: head.hash },
    count: entries.length,
    first_seq: first?.seq ?? null,
    last_seq: last?.seq ?? null,
    first_prev_hash: first?.prev_hash ?? null,
    last_hash: last?.hash ?? null,
    contiguous,
    digest: contiguous ? null : digest.digest('hex'),
  };
  return {
    statement,
    signature: sign(null, Buffer.from(canonicalize(statement)!, 'utf8'), key.privateKey).toString('base64'),
    key_fingerprint: key.fingerprint,
  };
}
