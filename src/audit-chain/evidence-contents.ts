import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { MUTATING_ROLES, ROLES, mayMutate } from '../contract/roles.js';
import { ROUTE_META } from '../contract/route-meta.js';
import { CREDENTIAL_FORMS } from '../contract/credential-forms.js';
import { sanitize } from '../text/sanitize.js';

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

/**
 * Whether a text holds the bearer token the pack was made with: a closure over it, so that the
 * token itself is never handed to the pack code (the dashboard's client keeps it).
 */
export type TokenMatcher = (text: string) => boolean;

/** The first secret `file` holds (the bearer token in use, or one of CREDENTIAL_FORMS), or null. */
export async function secretIn(file: string, holdsToken: TokenMatcher): Promise<SecretFound | null> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    if (holdsToken(text)) return { secret: 'the bearer token used to make it', line };
    for (const [pattern, what] of CREDENTIAL_FORMS) if (pattern.test(text)) return { secret: what, line };
  }
  return null;
}

/**
 * README.txt. Nothing the appliance sent is in it (`cat README.txt` must not reach the terminal with
 * an escape sequence or a line of the appliance's making): the fingerprints are computed here from
 * the keys, as hex; the URL and the times are the maker's own, sanitized all the same.
 */
export function packReadme(o: { url: string; since: string; madeAt: string; fingerprints: string[] }): string {
  const prints = o.fingerprints.filter((f) => /^[0-9a-f]{64}$/.test(f)).join(', ') || '(none served)';
  return `Evidence pack of the appliance ${sanitize(o.url, 300)}
made ${sanitize(o.madeAt, 40)}, covering ${sanitize(o.since, 40)} to then.

What is here
  audit.jsonl, audit.csv     the audit trail for the range, every entry with seq, prev_hash and hash
                             (the hash chain: docs/audit-chain.md)
  audit.jsonl.checkpoint.json, audit.csv.checkpoint.json
                             the appliance's signed statement of what each export holds (its range,
                             count, first and last entry) and the checkpoint of the trail's head
  public-keys.json           the appliance's public keys for those signatures
  audit-tree.proof.json      the export's head with its inclusion proof in the appliance's signed
                             tree (a proof file: audit verify-proof; absent before the tree)
  audit-witnessed.json       the newest checkpoint a witness cosigned, and the consistency proof that
                             the pack's tree extends it (absent when no witness cosigned one)
  journal.jsonl              the agent execution journal for the range
  keys.jsonl                 the gateway key inventory, one key a line (names, prefixes, limits;
                             never a secret); packs made before it hold keys.json
  role-matrix.json           what each role may do, as the server enforces it
  settings.json, deployment.json, install-plan.json, models.json, routing.json, budgets.json
                             as the appliance answered them to the pack's maker
  manifest.json              every file's sha256 and size, the range, who made the pack, when, from where
  seal.json                  the appliance's audit.seal entry of manifest.json's sha256 and the
                             checkpoint it signed of that entry (not listed in the manifest)

Check it with the tool
  appliance-admin evidence verify DIR --key KEY.pem
  (KEY.pem: the appliance's public key as you obtained it yourself, e.g. with audit key and its
  fingerprint compared out of band; without --key the pack's own public-keys.json is used, which
  proves the files consistent but not that the appliance signed them: exit status 4)

Check it by hand
  1. sha256sum manifest.json; seal.json's entry.details.sha256 must be that hash, and its entry must
     be the one its checkpoint signed: entry.hash = checkpoint.hash = SHA-256 of the RFC 8785
     canonical JSON of the entry without its hash; the checkpoint's Ed25519 signature is over the
     canonical JSON of {"at","hash","seq"}.
  2. sha256sum each file and compare with manifest.json.
  3. The signing key's fingerprint is SHA-256 of the raw 32-byte Ed25519 key; compare it with the one
     the appliance's deployment screen shows: ${prints}.
  4. appliance-admin audit verify audit.jsonl --key KEY.pem   (it reads audit.jsonl.checkpoint.json)
     recomputes every entry's hash and checks the export against the appliance's signed statement.
  5. appliance-admin audit verify-proof audit-tree.proof.json --key KEY.pem   checks the head's
     inclusion in the signed tree; audit verify --url URL --since audit-tree.proof.json later proves
     the trail only grew since.

What it proves, and what not
  The trail's entries for the range are complete and unaltered, as the appliance signed them. The
  manifest is sealed in the trail itself (seal.json): the appliance signed that this manifest was
  presented, by whom and when, so no file can be changed, added or removed since. The audit export
  is limited to the range, so it cannot prove that no entry before it was removed: keep a
  checkpoint from each walkthrough and pass it as --since next time. The other files are the
  appliance's answers to the pack's maker (the seal entry's actor), not signed by the appliance.
`;
}
