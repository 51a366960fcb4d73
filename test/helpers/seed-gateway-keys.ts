import type { Db, Statement } from '../../src/server/db/sqlite-driver.js';
import { recordSpend } from '../../src/server/gateway/spend.js';

/**
 * Gateway keys, and the spend that hangs on them, written straight into a test's database: many
 * keys at once without the server's hashing and auditing, known ids and timestamps, and databases
 * at an older schema that the server would migrate first.
 */

/**
 * A gateway_keys row. Only the columns a row names are written, the rest take the table's
 * defaults, so that a database at an older schema (without quota_changed_at, say) takes it too.
 */
export interface SeededKey {
  id: string;
  name: string;
  prefix: string;
  secret_hash: string;
  created_at: string;
  /** 'active' when left out */
  status?: 'active' | 'revoked';
  /** 'test' when left out */
  created_by?: string;
  last_used_at?: string | null;
  quota_changed_at?: string | null;
  requests_per_minute?: number | null;
  tokens_per_minute?: number | null;
  tokens_per_day?: number | null;
}

const OPTIONAL_COLUMNS = [
  'last_used_at',
  'quota_changed_at',
  'requests_per_minute',
  'tokens_per_minute',
  'tokens_per_day',
] as const satisfies readonly (keyof SeededKey)[];

/** Writes the keys in their order, in one transaction, one prepared statement for each set of columns. */
export function insertGatewayKeys(db: Db, keys: Iterable<SeededKey>): void {
  const statements = new Map<string, Statement>();
  db.transaction(() => {
    for (const key of keys) {
      const row = { status: 'active', created_by: 'test', ...key };
      const columns = ['id', 'name', 'status', 'prefix', 'secret_hash', 'created_at', 'created_by'];
      for (const c of OPTIONAL_COLUMNS) if (row[c] !== undefined) columns.push(c);
      const list = columns.join(', ');
      let insert = statements.get(list);
      if (!insert) {
        insert = db.prepare(`INSERT INTO gateway_keys (${list}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`);
        statements.set(list, insert);
      }
      insert.run(Object.fromEntries(columns.map((c) => [c, row[c as keyof typeof row]])));
    }
  })();
}

/**
 * `count` keys numbered from 0 under `tag`: id key_<tag><i>, prefix agk_<tag><i>, secret hash
 * hash-<tag>-<i>, quota_changed_at its creation (as the server writes a new key); `each(i)` gives
 * key i's name and creation, and may set or change any other column.
 */
export function numberedKeys(
  tag: string,
  count: number,
  each: (i: number) => Partial<SeededKey> & Pick<SeededKey, 'name' | 'created_at'>,
): SeededKey[] {
  return Array.from({ length: count }, (_, i) => {
    const key = each(i);
    return {
      id: `key_${tag}${i}`,
      prefix: `agk_${tag}${i}`,
      secret_hash: `hash-${tag}-${i}`,
      quota_changed_at: key.created_at,
      ...key,
    };
  });
}

/**
 * One chat request on llama-3.1-8b costing `euros`, in `minute`, recorded as the front door records
 * it: what a key's money budget is judged against (the test's server prices that model in EUR).
 */
export function recordEuros(db: Db, keyId: string, minute: number, euros: number): void {
  recordSpend(db, keyId, minute, {
    model_id: 'llama-3.1-8b',
    workload: 'chat',
    requests: 1,
    input_tokens: 1,
    output_tokens: 1,
    cost_nanos: euros * 1e9,
  });
}
