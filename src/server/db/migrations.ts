import type { Db } from './sqlite-driver.js';
import { chainExisting } from '../governance/chain-existing.js';
import { catchUpTree, newLogId } from '../audit-chain/tree.js';
import { rebuildRollup } from '../gateway/usage-rollup.js';
import { SEARCHED, searchIndexOf, searchRowsSql, type SearchedTable } from './searched.js';

/**
 * The summaries' tallies (migration 5): per table, its time column, the tallied columns and the
 * value each holds (the journal's NULL tool or error code is ''). Writers tally the rows they
 * insert with tallyRowsSql (governance/tallies.ts): a migration that changes a tally keeps it in step.
 */
const TALLIES = {
  audit: {
    time: 'at_ms',
    columns: ['outcome', 'action', 'actor_subject', 'target_type'],
    values: (r: string) => [`${r}outcome`, `${r}action`, `${r}actor_subject`, `${r}target_type`],
  },
  journal: {
    time: 'started_ms',
    columns: ['agent', 'channel', 'status', 'tool', 'error_code'],
    values: (r: string) => [
      `${r}agent`,
      `${r}channel`,
      `${r}status`,
      `ifnull(${r}tool, '')`,
      `ifnull(${r}error_code, '')`,
    ],
  },
} as const;
export type TalliedTable = keyof typeof TALLIES;
const SPANS = [3_600_000, 86_400_000];

/** Statements adding the rows of `table` that `where` selects to its tallies, one per span. */
export const tallyRowsSql = (table: TalliedTable, where: string): string[] => {
  const { time, columns, values } = TALLIES[table];
  return SPANS.map(
    (span) => `INSERT INTO ${table}_counts
  SELECT ${span}, ${time} - ${time} % ${span}, ${values('').join(', ')}, count(*) FROM ${table} WHERE ${where} GROUP BY 2, ${columns.map((_, i) => i + 3).join(', ')}
  ON CONFLICT DO UPDATE SET n = n + excluded.n;`,
  );
};

/** A row's tally statements in a trigger: `row` is new or old, `delta` 1 or -1. */
const tallyRow = (table: TalliedTable, row: 'new' | 'old', delta: string) => {
  const { time, values } = TALLIES[table];
  return SPANS.map(
    (span) => `
  INSERT INTO ${table}_counts VALUES (${span}, ${row}.${time} - ${row}.${time} % ${span}, ${values(`${row}.`).join(', ')}, ${delta})
    ON CONFLICT DO UPDATE SET n = n + excluded.n;`,
  ).join('');
};

/**
 * A table's tallies, filled from its rows. Updates and deletes, rare, are tallied by triggers;
 * inserts by their writers (governance/tallies.ts), a batch in one statement: an AFTER INSERT
 * trigger, even one skipped by its WHEN, made the demo's seed about 1.7x as slow (CPU time).
 */
const countsSchema = (table: TalliedTable) => {
  const { time, columns } = TALLIES[table];
  return `
CREATE TABLE ${table}_counts (
  span_ms INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  ${columns.map((c) => `${c} TEXT NOT NULL,`).join('\n  ')}
  n INTEGER NOT NULL,
  PRIMARY KEY (span_ms, start_ms, ${columns.join(', ')})
) WITHOUT ROWID;
${tallyRowsSql(table, 'true').join('\n')}
CREATE TRIGGER ${table}_counts_update AFTER UPDATE OF ${time}, ${columns.join(', ')} ON ${table} BEGIN${tallyRow(table, 'old', '-1')}${tallyRow(table, 'new', '1')}
END;
CREATE TRIGGER ${table}_counts_delete AFTER DELETE ON ${table} BEGIN${tallyRow(table, 'old', '-1')}
END;
`;
};

/**
 * Versioned schema. Append a new entry to change the schema; never edit a shipped one.
 * Times are stored as RFC 3339 text for output and as epoch milliseconds where queried by range.
 */
const searchSchema = (table: SearchedTable) => {
  const { key, columns } = SEARCHED[table];
  const index = searchIndexOf(table);
  const values = columns.map((c) => `new.${c}`).join(', ');
  const remove = `DELETE FROM ${index} WHERE rowid = old.${key};`;
  return `
CREATE VIRTUAL TABLE ${index} USING fts5(${columns.join(', ')}, content='', contentless_delete=1, tokenize='trigram', detail='none');
${searchRowsSql(table, 'true')};
CREATE TRIGGER ${index}_update AFTER UPDATE OF ${columns.join(', ')} ON ${table} BEGIN
  ${remove}
  INSERT INTO ${index} (rowid, ${columns.join(', ')}) VALUES (new.${key}, ${values});
END;
CREATE TRIGGER ${index}_delete AFTER DELETE ON ${table} BEGIN
  ${remove}
END;
`;
};

export const migrations: {
  version: number;
  name: string;
  sql: string;
  /** work SQL cannot do, run after `sql` in the same transaction */
  run?: (db: Db) => void;
}[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
CREATE TABLE api_tokens (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('it_admin','app_owner','auditor')),
  token_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  expires_at TEXT,
  revoked_at TEXT
);
CREATE TABLE connector_state (
  connector_id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  last_sync_at TEXT,
  last_sync_status TEXT,
  last_sync_job_id TEXT,
  last_sync_items INTEGER
);
CREATE TABLE jobs (
  seq INTEGER PRIMARY KEY,
  job_id TEXT NOT NULL UNIQUE,
  connector_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued','running','succeeded','failed')),
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT,
  items INTEGER,
  error TEXT
);
-- at most one queued or running job per source: the database enforces the 409
CREATE UNIQUE INDEX jobs_one_active ON jobs (connector_id, source_id) WHERE state IN ('queued','running');
CREATE TABLE channels (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE gateway_keys (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active','revoked')),
  prefix TEXT NOT NULL,
  secret_hash TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL,
  created_by TEXT NOT NULL,
  revoked_at TEXT,
  last_used_at TEXT,
  requests_per_minute INTEGER,
  tokens_per_minute INTEGER,
  tokens_per_day INTEGER
);
CREATE TABLE usage_minutes (
  key_id TEXT NOT NULL,
  minute INTEGER NOT NULL, -- epoch minutes
  requests INTEGER NOT NULL DEFAULT 0,
  rejected INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, minute)
) WITHOUT ROWID;
CREATE INDEX usage_minutes_minute ON usage_minutes (minute);
CREATE TABLE routing (
  workload TEXT PRIMARY KEY,
  model_id TEXT,
  updated_at TEXT,
  updated_by TEXT
);
-- small documents: active model, budgets
CREATE TABLE app_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at TEXT,
  updated_by TEXT
);
CREATE TABLE audit (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  at TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  actor_subject TEXT NOT NULL,
  actor_role TEXT,
  action TEXT NOT NULL,
  target_type TEXT NOT NULL,
  target_id TEXT,
  outcome TEXT NOT NULL CHECK (outcome IN ('success','denied','failed')),
  status INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  source_ip TEXT,
  details TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_at ON audit (at_ms);
CREATE INDEX audit_actor ON audit (actor_subject, seq);
CREATE INDEX audit_action ON audit (action, seq);
CREATE INDEX audit_outcome ON audit (outcome, seq);
CREATE TABLE journal (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  run_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  channel TEXT NOT NULL,
  step INTEGER NOT NULL,
  tool TEXT,
  status TEXT NOT NULL,
  started_at TEXT NOT NULL,
  started_ms INTEGER NOT NULL,
  ended_at TEXT,
  duration_ms INTEGER,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL
);
CREATE INDEX journal_started ON journal (started_ms);
CREATE INDEX journal_agent ON journal (agent, seq);
CREATE INDEX journal_status ON journal (status, seq);
CREATE INDEX journal_run ON journal (run_id, seq);
CREATE INDEX journal_channel ON journal (channel, seq);
`,
  },
  {
    version: 2,
    name: 'governance lists in time order',
    // Lists read newest first by (time, seq) with keyset paging. The first equality filter present
    // (in the order action > actor > outcome, run_id > agent > channel > status) drives the scan
    // through its (filter, time, seq) index, which returns the page in order without sorting; the
    // lower-priority filter columns trail in that index so a rare combination is rejected from the
    // index, without reading table rows. These replace the (filter, seq) indexes, which no query
    // orders by; an equality lookup uses the new ones just as well.
    sql: `
DROP INDEX audit_actor;
DROP INDEX audit_action;
DROP INDEX audit_outcome;
CREATE INDEX audit_action_at ON audit (action, at_ms, seq, actor_subject, outcome);
CREATE INDEX audit_actor_at ON audit (actor_subject, at_ms, seq, outcome);
CREATE INDEX audit_outcome_at ON audit (outcome, at_ms);
DROP INDEX journal_agent;
DROP INDEX journal_status;
DROP INDEX journal_run;
DROP INDEX journal_channel;
CREATE INDEX journal_run_started ON journal (run_id, started_ms);
CREATE INDEX journal_agent_started ON journal (agent, started_ms, seq, channel, status);
CREATE INDEX journal_channel_started ON journal (channel, started_ms, seq, status);
CREATE INDEX journal_status_started ON journal (status, started_ms);
`,
  },
  {
    version: 3,
    name: 'audit outcome index covers the other filters',
    // A rare outcome (denied, failed) may now drive the scan when it matches fewer rows than the
    // actor or action filter given with it (governance/keyset.ts). Carrying actor and action in
    // this index checks them without reading table rows, for a busy actor with outcome=denied
    // (test/bench/server-scale; docs/performance.md).
    sql: `
DROP INDEX audit_outcome_at;
CREATE INDEX audit_outcome_at ON audit (outcome, at_ms, seq, actor_subject, action);
`,
  },
  {
    version: 4,
    name: 'job list filters; gateway rejections by cause',
    // GET /jobs reads newest first (seq DESC) by connector, source or state: each (filter, seq)
    // index returns a filter's page in order, without reading the other connectors' history.
    //
    // usage_minutes.rejected stays the total; each cause gets a column, and the gateway writes
    // both (gateway/metering.ts recordUsage). Before this version only quota refusals were
    // counted, without saying which limit: each old row's rejections go to the first limit the
    // key's quota now sets, in the order the gateway checks them (requests/minute, tokens/minute,
    // tokens/day), and to requests/minute when it sets none. A key with one limit (the usual
    // case) is then exact; one whose quota changed since, or with several limits, is a best guess.
    sql: `
CREATE INDEX jobs_connector ON jobs (connector_id, seq);
CREATE INDEX jobs_source ON jobs (source_id, seq);
CREATE INDEX jobs_state ON jobs (state, seq);
ALTER TABLE usage_minutes ADD COLUMN rejected_rpm INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_minutes ADD COLUMN rejected_tpm INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_minutes ADD COLUMN rejected_tpd INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_minutes ADD COLUMN rejected_revoked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_minutes ADD COLUMN rejected_workload INTEGER NOT NULL DEFAULT 0;
UPDATE usage_minutes SET rejected_tpd = rejected WHERE rejected > 0 AND EXISTS (SELECT 1 FROM gateway_keys k
  WHERE k.id = usage_minutes.key_id AND k.requests_per_minute IS NULL AND k.tokens_per_minute IS NULL AND k.tokens_per_day IS NOT NULL);
UPDATE usage_minutes SET rejected_tpm = rejected WHERE rejected > 0 AND EXISTS (SELECT 1 FROM gateway_keys k
  WHERE k.id = usage_minutes.key_id AND k.requests_per_minute IS NULL AND k.tokens_per_minute IS NOT NULL);
UPDATE usage_minutes SET rejected_rpm = rejected WHERE rejected > 0 AND rejected_tpm = 0 AND rejected_tpd = 0;
`,
  },
  {
    version: 5,
    name: 'step errors, audit target names, text search and summaries',
    // A failed or cancelled step says why (a code and a short message: metadata, never content); an
    // audit entry keeps its target's name as it was then, so the trail reads after the target is
    // gone. Rows written before carry null. The new list filters (tool, error_code, target_type)
    // drive a scan through their (column, time) index as the older ones do.
    sql:
      `
ALTER TABLE journal ADD COLUMN error_code TEXT;
ALTER TABLE journal ADD COLUMN error_message TEXT;
ALTER TABLE audit ADD COLUMN target_name TEXT;
CREATE INDEX journal_tool_started ON journal (tool, started_ms);
CREATE INDEX journal_error_started ON journal (error_code, started_ms);
CREATE INDEX audit_target_type_at ON audit (target_type, at_ms);
` +
      // Summaries count from these per-hour and per-day tallies (span_ms 3600000 or 86400000) of
      // every combination of the fields they group and filter by, kept by triggers in the writer's
      // own transaction; only the ragged ends of a time range are counted from the rows. Over 30
      // days of 1,000,000 entries a count read every row (hundreds of ms); the tallies hold tens of
      // thousands (test/bench/server-summary). The journal's NULL tool or error code is '' here,
      // so that it can be part of the key (a real tool or code is never empty).
      countsSchema('audit') +
      countsSchema('journal'),
  },
  {
    version: 6,
    name: 'audit hash chain and signed checkpoints',
    // docs/audit-chain.md. Every entry gets prev_hash and hash, the existing ones here in seq order
    // (audit-chain/migrate.ts), which then audits the chaining as an entry of its own. The signing
    // key's public halves stay known after a rotation, so that old checkpoints still verify.
    sql: `
ALTER TABLE audit ADD COLUMN prev_hash TEXT;
ALTER TABLE audit ADD COLUMN hash TEXT;
CREATE TABLE audit_keys (
  fingerprint TEXT PRIMARY KEY,
  algorithm TEXT NOT NULL,
  public_key_pem TEXT NOT NULL,
  created_at TEXT NOT NULL,
  retired_at TEXT
);
CREATE TABLE audit_checkpoints (
  id INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL,
  at TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  signature TEXT NOT NULL,
  key_fingerprint TEXT NOT NULL REFERENCES audit_keys (fingerprint)
);
CREATE INDEX audit_checkpoints_seq ON audit_checkpoints (seq, id);
`,
    run: (db) => {
      const head = chainExisting(db);
      if (head) for (const sql of tallyRowsSql('audit', `seq = ${head.seq}`)) db.exec(sql);
    },
  },
  {
    version: 7,
    name: 'audit entries by request id',
    // The list, summary and export filter request_id finds the entry a request produced (the
    // dashboard's action log); without this index it read the whole trail. (request_id, at_ms)
    // gives the list its matches already in its (time, seq) order, like the other filters.
    sql: `CREATE INDEX audit_request_id_at ON audit (request_id, at_ms);`,
  },
  {
    version: 8,
    name: 'trigram search indexes',
    // Text search read every row of its range through a LIKE over each column, on the server's one
    // thread: 0.75 s over 1,000,000 audit entries, and twenty of them held every other request for
    // seconds. The index finds a rare text's few rows at once (governance/search.ts). Building it
    // over an existing trail takes its time once: about 27 s for 1,000,000 entries.
    sql: searchSchema('audit') + searchSchema('journal'),
  },
  {
    version: 9,
    name: 'quota changes and refused workload names',
    // Confirming a fix needs "rejected since the quota changed": each key keeps when its quota was
    // last set to other values. An existing key takes its newest successful quota change from the
    // audit trail, else its creation. An unknown workload's rejections name what was asked for, per
    // key and minute like the rest of the usage (front-door.ts bounds the names kept per minute).
    sql: `
ALTER TABLE gateway_keys ADD COLUMN quota_changed_at TEXT;
UPDATE gateway_keys SET quota_changed_at = COALESCE((SELECT a.at FROM audit a WHERE a.action = 'gateway.key.quota'
  AND a.outcome = 'success' AND a.target_id = gateway_keys.id ORDER BY a.at_ms DESC, a.seq DESC LIMIT 1), created_at);
CREATE TABLE usage_workload_rejections (
  key_id TEXT NOT NULL,
  minute INTEGER NOT NULL, -- epoch minutes
  workload TEXT NOT NULL,
  rejected INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, minute, workload)
) WITHOUT ROWID;
CREATE INDEX usage_workload_rejections_minute ON usage_workload_rejections (minute);
-- the refusals since a quota change read only the minutes that had one: a key metered every
-- minute for a year has half a million rows, and the key list sums them at each poll
CREATE INDEX usage_minutes_rejected ON usage_minutes (key_id, minute, rejected) WHERE rejected > 0;
`,
  },
  {
    version: 10,
    name: "each connector's last successful sync",
    // A connector's detail says when it last succeeded, however many failures followed: the newest
    // succeeded job of each connector, found through this index without reading its failures.
    sql: `CREATE INDEX jobs_connector_succeeded ON jobs (connector_id, seq) WHERE state = 'succeeded';`,
  },
  {
    version: 11,
    name: 'audit transparency-log tree, checkpoint notes and cosignatures',
    // docs/audit-chain.md, "The tree". Every complete subtree of the trail's Merkle tree is kept as it
    // closes (audit-chain/tree.ts), and seq maps to leaf index by runs of consecutive seqs. The log id
    // names this appliance's log in its checkpoint notes (origin appliance-admin/<log_id>), made here
    // once. Checkpoints signed from now on carry their tree size, root and signed note; older ones keep
    // null. The existing trail's tree is built here, in seq order, a batch at a time.
    sql: `
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  log_id TEXT NOT NULL
);
CREATE TABLE audit_tree (
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TABLE audit_tree_runs (
  first_seq INTEGER PRIMARY KEY,
  first_leaf INTEGER NOT NULL
);
ALTER TABLE audit_checkpoints ADD COLUMN origin TEXT;
ALTER TABLE audit_checkpoints ADD COLUMN tree_size INTEGER;
ALTER TABLE audit_checkpoints ADD COLUMN root_hash TEXT;
ALTER TABLE audit_checkpoints ADD COLUMN note TEXT;
CREATE INDEX audit_checkpoints_tree_size ON audit_checkpoints (tree_size) WHERE tree_size IS NOT NULL;
CREATE TABLE audit_cosignatures (
  checkpoint_id INTEGER NOT NULL REFERENCES audit_checkpoints (id),
  name TEXT NOT NULL,
  key_id TEXT NOT NULL,
  time INTEGER NOT NULL,
  signature TEXT NOT NULL,
  received_at TEXT NOT NULL,
  PRIMARY KEY (checkpoint_id, name, key_id)
) WITHOUT ROWID;
`,
    run: (db) => {
      db.prepare('INSERT INTO audit_log (id, log_id) VALUES (1, ?)').run(newLogId());
      const head = db.prepare('SELECT max(seq) FROM audit').pluck().get() as number | null;
      if (head) catchUpTree(db, head);
    },
  },
  {
    version: 12,
    name: 'audit forwarding position',
    // The copy off the host (audit-forward/) resumes after a restart or an outage from the last
    // entry the receiver took, per receiver: a new receiver gets the whole trail from #1.
    sql: `
CREATE TABLE audit_forward (
  target TEXT PRIMARY KEY,      -- the receiver's URL, as configured
  seq INTEGER NOT NULL,         -- the last entry the receiver took (0: none yet)
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
`,
  },
  {
    version: 13,
    name: 'gateway key expiry and rotation',
    // A key may expire; a rotation replaces its secret and keeps the old one working for a grace. Every
    // replaced secret stays here (its hash and prefix only, like the key's own), so that a client still
    // sending it after the grace is refused as `rotated` against its key rather than as an unknown key.
    // The front door's refusals of an expired key and of a replaced secret are counted by cause.
    sql: `
ALTER TABLE gateway_keys ADD COLUMN expires_at TEXT;
ALTER TABLE gateway_keys ADD COLUMN rotated_at TEXT;
CREATE TABLE gateway_key_replaced_secrets (
  seq INTEGER PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES gateway_keys (id),
  secret_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  replaced_at TEXT NOT NULL,
  valid_until TEXT NOT NULL,
  valid_until_ms INTEGER NOT NULL
);
CREATE INDEX gateway_key_replaced_secrets_key ON gateway_key_replaced_secrets (key_id, seq);
ALTER TABLE usage_minutes ADD COLUMN rejected_expired INTEGER NOT NULL DEFAULT 0;
ALTER TABLE usage_minutes ADD COLUMN rejected_rotated INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 14,
    name: 'gateway spend and key budgets',
    // What each call cost, by key, model and workload, kept at three grains written together in the
    // front door's transaction (gateway/spend.ts): minutes for the last hours, hours and days for
    // summaries over weeks, so that a month's cost reads days, not forty thousand minutes. Costs are
    // whole nano-units of the appliance's currency, taken at the price of the moment of the call: a
    // later price change does not rewrite what was spent. A call to a model without a price counts
    // in unpriced_requests, never as free. Keyed by time first: a summary over a range reads its rows
    // in place, where an index by time led to a lookup per row (docs/performance.md); a key's own
    // spend (its budgets, its page of the list) reads usage_spend_key. A key may have a money budget
    // per UTC day and month (NULL: none); calls beyond a hard budget are refused with cause `budget`.
    sql: `
CREATE TABLE usage_spend (
  grain TEXT NOT NULL CHECK (grain IN ('minute','hour','day')),
  key_id TEXT NOT NULL,
  start_minute INTEGER NOT NULL, -- epoch minute the bucket starts at (UTC-aligned)
  model_id TEXT NOT NULL,        -- '' when no model served the workload
  workload TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_nanos INTEGER NOT NULL DEFAULT 0,
  unpriced_requests INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (grain, start_minute, key_id, model_id, workload)
) WITHOUT ROWID;
CREATE INDEX usage_spend_key ON usage_spend (grain, key_id, start_minute);
ALTER TABLE usage_minutes ADD COLUMN rejected_budget INTEGER NOT NULL DEFAULT 0;
ALTER TABLE gateway_keys ADD COLUMN budget_per_day_nanos INTEGER;
ALTER TABLE gateway_keys ADD COLUMN budget_per_month_nanos INTEGER;
ALTER TABLE gateway_keys ADD COLUMN budget_warn_percent INTEGER NOT NULL DEFAULT 80;
`,
  },
  {
    version: 15,
    name: 'gateway keys paged by index, usage by hour and day',
    // The keys list pages in SQL by its own order (gateway/keys.ts listGatewayKeys): newest first, by
    // status newest first, or by name for a search by its beginning. Without these a page sorted every
    // key first: an appliance with a million keys must page as one with ten. The name index, letter
    // case aside, also answers the check for an active key of the same name at creation. Usage is
    // kept by the hour and the UTC day too (gateway/usage-rollup.ts), written with each minute row,
    // so that a day's or a week's usage reads hours and days rather than every minute.
    sql: `
CREATE INDEX gateway_keys_created ON gateway_keys (created_at, seq);
CREATE INDEX gateway_keys_status_created ON gateway_keys (status, created_at, seq);
CREATE INDEX gateway_keys_name ON gateway_keys (name COLLATE NOCASE, seq);
CREATE TABLE usage_rollup (
  grain TEXT NOT NULL CHECK (grain IN ('hour','day')),
  start_minute INTEGER NOT NULL, -- epoch minute the hour or UTC day starts at
  key_id TEXT NOT NULL,
  requests INTEGER NOT NULL DEFAULT 0,
  rejected INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  rejected_rpm INTEGER NOT NULL DEFAULT 0,
  rejected_tpm INTEGER NOT NULL DEFAULT 0,
  rejected_tpd INTEGER NOT NULL DEFAULT 0,
  rejected_revoked INTEGER NOT NULL DEFAULT 0,
  rejected_workload INTEGER NOT NULL DEFAULT 0,
  rejected_expired INTEGER NOT NULL DEFAULT 0,
  rejected_rotated INTEGER NOT NULL DEFAULT 0,
  rejected_budget INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (grain, start_minute, key_id)
) WITHOUT ROWID;
`,
    // the usage already counted, by hour and by day: one pass over the minute rows
    run: rebuildRollup,
  },
  {
    version: 16,
    name: 'gateway keys found by idleness and expiry',
    // The keys list answers "which keys are unused for N days, never used, expiring within N days" in
    // SQL over every key (gateway/keys.ts listGatewayKeys), so that an appliance with a million keys is
    // asked, not a client judging the newest page. idle_since_minute is the epoch minute of the key's
    // last use (last_used_at: a call the front door metered, passed or refused by a quota or budget),
    // or of its creation when never used: a key unused for N days is one range of its index. The
    // triggers keep it for every writer; the one on update writes it only when the minute changes,
    // so that a busy key's index entry moves at most once a minute, not with each of its calls.
    sql: `
ALTER TABLE gateway_keys ADD COLUMN idle_since_minute INTEGER;
UPDATE gateway_keys SET idle_since_minute = unixepoch(COALESCE(last_used_at, created_at)) / 60;
CREATE TRIGGER gateway_keys_idle_since_insert AFTER INSERT ON gateway_keys
WHEN new.idle_since_minute IS NOT unixepoch(COALESCE(new.last_used_at, new.created_at)) / 60 BEGIN
  UPDATE gateway_keys SET idle_since_minute = unixepoch(COALESCE(new.last_used_at, new.created_at)) / 60
  WHERE seq = new.seq;
END;
CREATE TRIGGER gateway_keys_idle_since_update AFTER UPDATE OF last_used_at, created_at ON gateway_keys
WHEN new.idle_since_minute IS NOT unixepoch(COALESCE(new.last_used_at, new.created_at)) / 60 BEGIN
  UPDATE gateway_keys SET idle_since_minute = unixepoch(COALESCE(new.last_used_at, new.created_at)) / 60
  WHERE seq = new.seq;
END;
CREATE INDEX gateway_keys_idle ON gateway_keys (status, idle_since_minute, seq);
CREATE INDEX gateway_keys_never_used ON gateway_keys (created_at, seq) WHERE status = 'active' AND last_used_at IS NULL;
CREATE INDEX gateway_keys_expiry ON gateway_keys (status, expires_at, seq) WHERE expires_at IS NOT NULL;
`,
  },
  {
    version: 17,
    name: 'gateway keys found by budget',
    // The keys list answers "which keys have a money budget" (has_budget) from this index, newest
    // first, so that the overview judges who is near a budget among those keys, not among the
    // newest page of a million. Its terms are the ones the list states (gateway/keys.ts HAS_BUDGET).
    sql: `
CREATE INDEX gateway_keys_budget ON gateway_keys (created_at, seq)
WHERE budget_per_day_nanos IS NOT NULL OR budget_per_month_nanos IS NOT NULL;
`,
  },
];
