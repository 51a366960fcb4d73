import type { GroupFactory } from '../http/route-kit.js';
import { auditCsvColumns, auditSpec, listAudit, summarizeAudit, toAuditEntry } from '../governance/audit-trail.js';
import {
  journalCsvColumns,
  journalSpec,
  listJournal,
  summarizeJournal,
  toJournalEntry,
} from '../governance/agent-journal.js';
import { startExport } from '../governance/export.js';

/** Read side of governance: audit trail and agent journal, paged lists, summaries and streamed exports. */
export const governanceGroup: GroupFactory = () => ({
  handlers: {
    listAudit: { run: ({ query }, { db }) => ({ body: listAudit(db, query) }) },
    exportAudit: {
      run: ({ query }, ctx) => ({ file: startExport(ctx, auditSpec, query, toAuditEntry, auditCsvColumns) }),
    },
    auditSummary: { run: ({ query }, { db }) => ({ body: summarizeAudit(db, query) }) },
    journalSummary: { run: ({ query }, { db }) => ({ body: summarizeJournal(db, query) }) },
    listJournal: { run: ({ query }, { db }) => ({ body: listJournal(db, query) }) },
    exportJournal: {
      run: ({ query }, ctx) => ({ file: startExport(ctx, journalSpec, query, toJournalEntry, journalCsvColumns) }),
    },
  },
});
