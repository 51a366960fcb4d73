import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { MUTATING_ROLES, ROLES, mayMutate } from '../contract/roles.js';
import { ROUTE_META } from '../contract/route-meta.js';
import { CREDENTIAL_FORMS } from '../contract/credential-forms.js';

/**
 * What each role may do, as the server enforces it (src/server/http/route-kit.ts): every
 * authenticated role may call a route that changes nothing; a route that changes state needs a
 * role for which mayMutate holds. Derived from the contract's own route list and rule, so it
 * cannot drift from the server.
 */
export function roleMatrix() {
  return {
    rule:
      `every role may call every read route; a route that changes state needs one of: ` +
      `${MUTATING_ROLES.join(', ')}; every such attempt, allowed or denied, is audited`,
    roles: [...ROLES],
    routes: Object.values(ROUTE_META).map((r) => ({
      route: r.name,
      method: r.method,
      path: `/v1/admin${r.path}`,
      ...(r.mutates ? { action: (r as { action?: string }).action } : {}),
      changes_state: r.mutates,
      allowed: Object.fromEntries(ROLES.map((role) => [role, !r.mutates || mayMutate(role)])),
    })),
  };
}

/** Where a pack's file holds a secret: which kind, on which line (from 1). */
export interface SecretFound {
  secret: string;
  line: number;
}

/** The first secret `file` holds (the bearer token in use, or one of CREDENTIAL_FORMS), or null. */
export async function secretIn(file: string, token: string): Promise<SecretFound | null> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (token && text.includes(token)) return { secret: 'the bearer token used to make it', line };
    for (const [pattern, what] of CREDENTIAL_FORMS) if (pattern.test(text)) return { secret: what, line };
  }
  return null;
}

export const PACK_README = (o: { url: string; since: string; madeAt: string; fingerprints: string[] }) =>
  `Evidence pack of the appliance ${o.url}
made ${o.madeAt}, covering ${o.since} to then.

What is here
  audit.jsonl, audit.csv     the audit trail for the range, every entry with seq, prev_hash and hash
                             (the hash chain: docs/audit-chain.md)
  audit.jsonl.checkpoint.json, audit.csv.checkpoint.json
                             the appliance's signed checkpoint for each (two exports, so two
                             checkpoints), made when the export started
  public-keys.json           the appliance's public keys for those signatures
  journal.jsonl              the agent execution journal for the range
  keys.json                  the gateway key inventory (names, prefixes, limits; never a secret)
  role-matrix.json           what each role may do, as the server enforces it
  settings.json, deployment.json, install-plan.json, models.json, routing.json, budgets.json
  manifest.json              every file's sha256 and size, the range, who made the pack, when, from where

Check it with the tool
  appliance-admin evidence verify DIR --key KEY.pem
  (KEY.pem: the appliance's public key as you obtained it yourself; without --key the pack's own
  public-keys.json is used, which proves the files consistent but not that the appliance signed them)

Check it by hand
  1. sha256sum each file and compare with manifest.json.
  2. The signing key's fingerprint is SHA-256 of the raw 32-byte Ed25519 key; compare it with the one
     the appliance's deployment screen shows: ${o.fingerprints.join(', ') || '(none served)'}.
  3. appliance-admin audit verify audit.jsonl --key KEY.pem   (it reads audit.jsonl.checkpoint.json)
     recomputes every entry's hash (SHA-256 of the RFC 8785 canonical JSON of the entry without its
     hash), and checks the checkpoint's Ed25519 signature over {"at","hash","seq"}.

What it proves, and what not
  The trail's entries are unaltered, and the checkpoint signs its end. The audit export is
  limited to the range, so it cannot prove that no entry before the range was removed: keep a
  checkpoint from each walkthrough and pass it as --since next time. manifest.json is not signed:
  it proves the files belong together as they were written, not who wrote them.
`;
