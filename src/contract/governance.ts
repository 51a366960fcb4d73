import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Limit, PageQuery, Role, Timestamp, endAfterStart, END_AFTER_START, page, AgentName } from './common.js';
import { REQUEST_ID_MAX, REQUEST_ID_PATTERN } from './request-id.js';

export const Outcome = z.enum(['success', 'denied', 'failed']);
export type Outcome = z.infer<typeof Outcome>;

/** Text search: at least 2 characters, at most 200. */
/**
 * Text search: a NUL once cut the server's pattern short (`%00zzzz` matched every entry), and no
 * control character is ever in what an operator means to find: refused, with the parameter named.
 */
const SearchText = z
  .string()
  .trim()
  .min(2)
  .max(200)
  .regex(/^\P{Cc}*$/u, 'must not hold control characters (NUL, tab, newline, escape and the like)');

const ChainHash = z.string().regex(/^[0-9a-f]{64}$/);

export const AuditEntry = z.object({
  id: z.string(),
  at: Timestamp,
  actor: z.object({ subject: z.string(), role: Role.nullable() }),
  /** dotted, e.g. gateway.key.revoke */
  action: z.string(),
  /** `name`: what the target was called when the entry was written (a key's or model's name), so the trail reads without lookups */
  target: z.object({ type: z.string(), id: z.string().nullable(), name: z.string().nullable() }),
  outcome: Outcome,
  status: z.number().int(),
  request_id: z.string(),
  source_ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  /** the hash chain (docs/audit-chain.md): gapless from 1 in the order written */
  seq: z.number().int().min(1),
  /** `hash` of entry seq - 1; 64 zeros for entry 1 */
  prev_hash: ChainHash,
  /** SHA-256 of the RFC 8785 canonical JSON of this entry without `hash` */
  hash: ChainHash,
});
export type AuditEntry = z.infer<typeof AuditEntry>;
export const AuditList = page(AuditEntry);

/** A request id as the appliance writes it (`req_…`): letters, digits and `_ . : -`. */
export const RequestId = z
  .string()
  .min(1)
  .max(REQUEST_ID_MAX)
  .regex(REQUEST_ID_PATTERN, 'a request id: letters, digits, _ . : -');

const auditFilterShape = {
  /** the entries one request produced (usually one): its `request_id`, exact */
  request_id: RequestId.optional(),
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
  actor: z.string().min(1).max(200).optional(),
  /** exact action, or a prefix ending in `*` (gateway.key.*) */
  action: z.string().min(1).max(200).optional(),
  outcome: Outcome.optional(),
  target_type: z.string().min(1).max(100).optional(),
  /** text search, case-insensitive, over actor, action, outcome, target type, id and name, and details */
  q: SearchText.optional(),
};
export const AuditQuery = PageQuery.extend({
  ...auditFilterShape,
  /** the one entry of that seq (when it matches the other filters): how a proof's entry is fetched */
  seq: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
}).refine(endAfterStart, END_AFTER_START);
export type AuditQuery = z.infer<typeof AuditQuery>;

/** The appliance's signed statement of the trail's head (docs/audit-chain.md). */
export const AuditCheckpoint = z.object({
  seq: z.number().int().min(1),
  hash: ChainHash,
  at: Timestamp,
  /** Ed25519 over the JCS canonical JSON of {at, hash, seq}, base64 */
  signature: z.string(),
  key_fingerprint: ChainHash,
  /**
   * The transparency-log tree (docs/audit-chain.md, "The tree", "The checkpoint note"); null on a
   * checkpoint signed before the appliance kept the tree (absent from an older appliance). `origin`:
   * `appliance-admin/<log id>`; `tree_size`: the entries with seq <= this seq; `root_hash`: the
   * tree's root at that size, hex.
   */
  origin: z.string().nullable().optional(),
  tree_size: z.number().int().min(1).nullable().optional(),
  root_hash: ChainHash.nullable().optional(),
  /** the C2SP signed note of the tree head, then a line for each witness's cosignature the appliance holds */
  note: z.string().nullable().optional(),
});
export type AuditCheckpoint = z.infer<typeof AuditCheckpoint>;
export const AuditPublicKey = z.object({
  fingerprint: ChainHash,
  algorithm: z.literal('Ed25519'),
  public_key_pem: z.string(),
  created_at: Timestamp,
  retired_at: Timestamp.nullable(),
});
/** Newest first, with every public key (current and retired) so that old checkpoints verify. */
export const AuditCheckpointList = z.object({
  data: z.array(AuditCheckpoint),
  next_cursor: z.string().nullable(),
  has_more: z.boolean(),
  public_keys: z.array(AuditPublicKey),
});
export type AuditCheckpointList = z.infer<typeof AuditCheckpointList>;
/**
 * A hash to seal in the trail (docs/audit-chain.md, "Evidence packs"): an evidence pack's manifest.
 * The appliance records it as an `audit.seal` entry and signs a checkpoint of that entry.
 */
export const AuditSealRequest = z.strictObject({
  /** SHA-256 of what is sealed (a pack's manifest.json), lowercase hex */
  sha256: ChainHash,
  purpose: z.enum(['evidence-pack']),
});
export type AuditSealRequest = z.infer<typeof AuditSealRequest>;
/** The seal: the `audit.seal` entry as written, and the checkpoint of it (its hash is the entry's). */
export const AuditSeal = z.object({ entry: AuditEntry, checkpoint: AuditCheckpoint });
export type AuditSeal = z.infer<typeof AuditSeal>;
export const AuditCheckpointQuery = PageQuery.extend({
  at_or_before_seq: z.coerce.number().int().min(1).optional(),
});

/** A tree size or a seq in a query: a whole number the server can hold exactly. */
const TreeCount = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/** `GET /audit/proofs/inclusion`: entry `seq` in the tree of `tree_size` (default: the newest signed tree). */
export const AuditInclusionProofQuery = z.strictObject({ seq: TreeCount, tree_size: TreeCount.optional() });
/**
 * RFC 9162 §2.1.3 (docs/audit-chain.md, "Proofs"): the entry's leaf is SHA-256(0x00 || entry_hash's 32
 * bytes); `path` is its audit path in the tree of `tree_size`, leaf side first, each hash hex.
 */
export const AuditInclusionProof = z.object({
  seq: z.number().int().min(1),
  leaf_index: z.number().int().min(0),
  tree_size: z.number().int().min(1),
  entry_hash: ChainHash,
  path: z.array(ChainHash),
});
export type AuditInclusionProof = z.infer<typeof AuditInclusionProof>;
/** `GET /audit/proofs/consistency`: the tree of `from` is a prefix of the tree of `to`. */
export const AuditConsistencyProofQuery = z
  .strictObject({ from: TreeCount, to: TreeCount })
  .refine((q) => q.from <= q.to, { message: 'from must not be above to', path: ['from'] });
/** RFC 9162 §2.1.4: the consistency proof from the tree of `from` to the tree of `to`, each hash hex. */
export const AuditConsistencyProof = z.object({
  from: z.number().int().min(1),
  to: z.number().int().min(1),
  path: z.array(ChainHash),
});
export type AuditConsistencyProof = z.infer<typeof AuditConsistencyProof>;
/**
 * A witness's cosignature of one of the appliance's checkpoint notes (docs/audit-chain.md,
 * "Cosignatures"): `note` is the checkpoint note with the witness's cosignature/v1 line, `witness_key`
 * the witness's verifier key (`name+keyid+base64(0x04 || key)`).
 */
export const AuditCosignatureRequest = z.strictObject({
  note: z.string().min(1).max(65536),
  witness_key: z.string().min(1).max(1024),
});
export type AuditCosignatureRequest = z.infer<typeof AuditCosignatureRequest>;

export const ExportFormat = z.enum(['csv', 'jsonl']);
export type ExportFormat = z.infer<typeof ExportFormat>;
/** why an export is made, recorded in its audit entry: `evidence` when it goes into an evidence pack */
const exportPurpose = { purpose: z.enum(['evidence']).optional() };
export const AuditExportQuery = z
  .strictObject({ format: ExportFormat.default('csv'), ...auditFilterShape, ...exportPurpose })
  .refine(endAfterStart, END_AFTER_START);
export type AuditExportQuery = z.infer<typeof AuditExportQuery>;

export const JournalStatus = z.enum(['running', 'succeeded', 'failed', 'cancelled']);
/**
 * Why a step failed: metadata only, never prompt or output text. `code` is one of a small set
 * (tool_error, tool_timeout, budget_exceeded, model_unavailable, cancelled, …); `message` is a
 * short operator-facing sentence.
 */
export const JournalError = z.object({ code: z.string(), message: z.string() });
export type JournalError = z.infer<typeof JournalError>;
export const JournalEntry = z.object({
  id: z.string(),
  run_id: z.string(),
  agent: z.string(),
  channel: z.string(),
  step: z.number().int().min(0),
  tool: z.string().nullable(),
  status: JournalStatus,
  started_at: Timestamp,
  ended_at: Timestamp.nullable(),
  duration_ms: z.number().int().min(0).nullable(),
  input_tokens: z.number().int().min(0),
  output_tokens: z.number().int().min(0),
  error: JournalError.nullable(),
});
export type JournalEntry = z.infer<typeof JournalEntry>;
export const JournalList = page(JournalEntry);

const journalFilterShape = {
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
  agent: z.string().min(1).max(200).optional(),
  channel: z.string().min(1).max(200).optional(),
  run_id: z.string().min(1).max(200).optional(),
  status: JournalStatus.optional(),
  tool: z.string().min(1).max(200).optional(),
  error_code: z.string().min(1).max(100).optional(),
  /** text search, case-insensitive, over agent, status, tool, run id and error */
  q: SearchText.optional(),
};
export const JournalQuery = PageQuery.extend(journalFilterShape).refine(endAfterStart, END_AFTER_START);
export type JournalQuery = z.infer<typeof JournalQuery>;
export const JournalExportQuery = z
  .strictObject({ format: ExportFormat.default('csv'), ...journalFilterShape, ...exportPurpose })
  .refine(endAfterStart, END_AFTER_START);
export type JournalExportQuery = z.infer<typeof JournalExportQuery>;

/** What a summary counts by. */
export const AUDIT_GROUPS = ['outcome', 'action', 'actor', 'target_type'] as const;
export const JOURNAL_GROUPS = ['agent', 'status', 'tool', 'error_code', 'channel'] as const;
const THEN_BY = { message: 'then_by needs a group_by, and another field than it', path: ['then_by'] };
const summaryLimit = { limit: z.coerce.number().int().min(1).max(500).default(50) };
export const AuditSummaryQuery = z
  .strictObject({
    ...auditFilterShape,
    group_by: z.enum(AUDIT_GROUPS).optional(),
    then_by: z.enum(AUDIT_GROUPS).optional(),
    ...summaryLimit,
  })
  .refine((q) => q.then_by === undefined || (q.group_by !== undefined && q.then_by !== q.group_by), THEN_BY)
  .refine(endAfterStart, END_AFTER_START);
export type AuditSummaryQuery = z.infer<typeof AuditSummaryQuery>;
export const JournalSummaryQuery = z
  .strictObject({
    ...journalFilterShape,
    group_by: z.enum(JOURNAL_GROUPS).optional(),
    then_by: z.enum(JOURNAL_GROUPS).optional(),
    ...summaryLimit,
  })
  .refine((q) => q.then_by === undefined || (q.group_by !== undefined && q.then_by !== q.group_by), THEN_BY)
  .refine(endAfterStart, END_AFTER_START);
export type JournalSummaryQuery = z.infer<typeof JournalSummaryQuery>;
/**
 * Counts over the whole match of a list's filters, never over a page: `total` entries, and with
 * `group_by` the count per group, largest first (ties by key), at most `limit` groups; `other`
 * counts the entries of the groups left out. A null key groups entries without a value (no tool).
 * With `then_by`, each group also splits its count by that second field: its 3 largest sub-groups
 * (e.g. group_by=agent&then_by=error_code: each agent's top error codes).
 */
const SummaryCount = z.object({ key: z.string().nullable(), count: z.number().int().min(0) });
export const Summary = z.object({
  total: z.number().int().min(0),
  group_by: z.string().nullable(),
  then_by: z.string().nullable(),
  groups: z.array(SummaryCount.extend({ sub: z.array(SummaryCount).optional() })),
  other: z.number().int().min(0),
});
export type Summary = z.infer<typeof Summary>;

export const BudgetValues = z.strictObject({
  tokens_per_run: Limit,
  tool_calls_per_run: Limit,
  seconds_per_run: Limit,
  tokens_per_day: Limit,
});
export type BudgetValues = z.infer<typeof BudgetValues>;
export const SetBudgets = z.strictObject({
  defaults: BudgetValues,
  agents: z.record(AgentName, BudgetValues.partial()),
});
export type SetBudgets = z.infer<typeof SetBudgets>;
export const Budgets = z.object({
  defaults: BudgetValues,
  agents: z.record(z.string(), BudgetValues.partial()),
  updated_at: Timestamp.nullable(),
  updated_by: z.string().nullable(),
});
export type Budgets = z.infer<typeof Budgets>;

/** The largest of each per-run measure over a window's runs. */
export const RunPeak = z.object({
  tokens: z.number().int().min(0),
  tool_calls: z.number().int().min(0),
  seconds: z.number().min(0),
});
/**
 * How much of its budget each agent used, from the journal: tokens over the last 24 hours against
 * `tokens_per_day`, and the largest run of those 24 hours against the per-run limits. `limits` are
 * the agent's effective budget (its override over the defaults; null is unlimited).
 */
export const BudgetUsage = z.object({
  start_time: Timestamp,
  end_time: Timestamp,
  agents: z.array(
    z.object({
      agent: z.string(),
      limits: BudgetValues,
      tokens: z.number().int().min(0),
      runs: z.number().int().min(0),
      peak_run: RunPeak,
      /** runs that went over a per-run limit */
      runs_over: z.object({
        tokens_per_run: z.number().int(),
        tool_calls_per_run: z.number().int(),
        seconds_per_run: z.number().int(),
      }),
    }),
  ),
});
export type BudgetUsage = z.infer<typeof BudgetUsage>;

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const governanceRoutes = {
  listAudit: { query: AuditQuery, response: AuditList },
  exportAudit: { query: AuditExportQuery, response: 'file' },
  listJournal: { query: JournalQuery, response: JournalList },
  exportJournal: { query: JournalExportQuery, response: 'file' },
  auditSummary: { query: AuditSummaryQuery, response: Summary },
  listAuditCheckpoints: { query: AuditCheckpointQuery, response: AuditCheckpointList },
  sealAudit: { body: AuditSealRequest, response: AuditSeal },
  auditInclusionProof: { query: AuditInclusionProofQuery, response: AuditInclusionProof },
  auditConsistencyProof: { query: AuditConsistencyProofQuery, response: AuditConsistencyProof },
  cosignAuditCheckpoint: { body: AuditCosignatureRequest, response: AuditCheckpoint },
  journalSummary: { query: JournalSummaryQuery, response: Summary },
  getBudgets: { response: Budgets },
  budgetUsage: { response: BudgetUsage },
  setBudgets: { body: SetBudgets, response: Budgets },
} as const satisfies AreaRoutes<'governance'>;
