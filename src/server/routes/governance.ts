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
    listAudit: { allow: 'any role', audit: null, run: ({ query }, { db }) => ({ body: listAudit(db, query) }) },
    exportAudit: {
      allow: 'any role',
      audit: null,
      run: ({ query }, ctx) => ({ file: startExport(ctx, auditSpec, query, toAuditEntry, auditCsvColumns) }),
    },
    auditSummary: { allow: 'any role', audit: null, run: ({ query }, { db }) => ({ body: summarizeAudit(db, query) }) },
    journalSummary: {
      allow: 'any role',
      audit: null,
      run: ({ query }, { db }) => ({ body: summarizeJournal(db, query) }),
    },
    listJournal: { allow: 'any role', audit: null, run: ({ query }, { db }) => ({ body: listJournal(db, query) }) },
    exportJournal: {
      allow: 'any role',
      audit: null,
      run: ({ query }, ctx) => ({ file: startExport(ctx, journalSpec, query, toJournalEntry, journalCsvColumns) }),
    },
  },
});
