import { ApiError } from '../errors.js';
import type { GroupFactory } from '../http/route-kit.js';
import { auditCsvColumns, auditSpec, listAudit, toAuditEntry } from '../governance/audit-trail.js';
import { journalCsvColumns, journalSpec, listJournal, toJournalEntry } from '../governance/agent-journal.js';
import { startExport } from '../governance/export.js';

/** Read side of governance: audit trail and agent journal, paged lists and streamed exports. */
export const governanceGroup: GroupFactory = () => ({
  handlers: {
    listAudit: { run: ({ query }, { db }) => ({ body: listAudit(db, query) }) },
    exportAudit: { run: ({ query }, ctx) => ({ file: startExport(ctx, auditSpec, query, toAuditEntry, auditCsvColumns) }) },
    auditSummary: { run: () => { throw new ApiError(503, 'not implemented yet'); } },
    journalSummary: { run: () => { throw new ApiError(503, 'not implemented yet'); } },
    listJournal: { run: ({ query }, { db }) => ({ body: listJournal(db, query) }) },
    exportJournal: { run: ({ query }, ctx) => ({ file: startExport(ctx, journalSpec, query, toJournalEntry, journalCsvColumns) }) },
  },
});
