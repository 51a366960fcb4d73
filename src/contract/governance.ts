import * as z from 'zod';
import type { AreaRoutes } from './route-meta.js';
import { Limit, PageQuery, Role, Timestamp, endAfterStart, END_AFTER_START, page, AgentName } from './common.js';

export const Outcome = z.enum(['success', 'denied', 'failed']);
export type Outcome = z.infer<typeof Outcome>;

export const AuditEntry = z.object({
  id: z.string(),
  at: Timestamp,
  actor: z.object({ subject: z.string(), role: Role.nullable() }),
  /** dotted, e.g. gateway.key.revoke */
  action: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }),
  outcome: Outcome,
  status: z.number().int(),
  request_id: z.string(),
  source_ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
export const AuditList = page(AuditEntry);

const auditFilterShape = {
  start_time: Timestamp.optional(),
  end_time: Timestamp.optional(),
  actor: z.string().min(1).max(200).optional(),
  /** exact action, or a prefix ending in `*` (gateway.key.*) */
  action: z.string().min(1).max(200).optional(),
  outcome: Outcome.optional(),
};
export const AuditQuery = PageQuery.extend(auditFilterShape).refine(endAfterStart, END_AFTER_START);
export type AuditQuery = z.infer<typeof AuditQuery>;

export const ExportFormat = z.enum(['csv', 'jsonl']);
export type ExportFormat = z.infer<typeof ExportFormat>;
export const AuditExportQuery = z
  .strictObject({ format: ExportFormat.default('csv'), ...auditFilterShape })
  .refine(endAfterStart, END_AFTER_START);
export type AuditExportQuery = z.infer<typeof AuditExportQuery>;

export const JournalStatus = z.enum(['running', 'succeeded', 'failed', 'cancelled']);
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
};
export const JournalQuery = PageQuery.extend(journalFilterShape).refine(endAfterStart, END_AFTER_START);
export type JournalQuery = z.infer<typeof JournalQuery>;
export const JournalExportQuery = z
  .strictObject({ format: ExportFormat.default('csv'), ...journalFilterShape })
  .refine(endAfterStart, END_AFTER_START);
export type JournalExportQuery = z.infer<typeof JournalExportQuery>;

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

/** The schemas of this area's routes (routes.ts joins them with route-meta.ts). */
export const governanceRoutes = {
  listAudit: { query: AuditQuery, response: AuditList },
  exportAudit: { query: AuditExportQuery, response: 'file' },
  listJournal: { query: JournalQuery, response: JournalList },
  exportJournal: { query: JournalExportQuery, response: 'file' },
  getBudgets: { response: Budgets },
  setBudgets: { body: SetBudgets, response: Budgets },
} as const satisfies AreaRoutes<'governance'>;
