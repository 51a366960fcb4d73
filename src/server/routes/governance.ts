import type { GroupFactory } from '../http/route-kit.js';
import { listAudit, summarizeAudit } from '../governance/audit-trail.js';
import { startAuditExport } from '../governance/audit-export.js';
import {
  journalCsvColumns,
  journalSpec,
  listJournal,
  summarizeJournal,
  toJournalEntry,
} from '../governance/agent-journal.js';
import { startExport } from '../governance/export.js';
import { startAuditChain } from '../audit-chain/start.js';
import { listCheckpoints } from '../audit-chain/checkpoint-list.js';

/** Read side of governance: audit trail and agent journal, paged lists, summaries and streamed exports. */
export const governanceGroup: GroupFactory = ({ db, options }) => {
  const stopChain = startAuditChain(db, options.dataDir);
  return {
    handlers: {
      listAudit: { run: ({ query }, { db }) => ({ body: listAudit(db, query) }) },
      exportAudit: {
        run: ({ query }, ctx) => {
          const file = startAuditExport(ctx, query);
          return { file, headers: file.headers };
        },
      },
      auditSummary: { run: ({ query }, { db }) => ({ body: summarizeAudit(db, query) }) },
      listAuditCheckpoints: { run: ({ query }, { db }) => ({ body: listCheckpoints(db, query) }) },
      journalSummary: { run: ({ query }, { db }) => ({ body: summarizeJournal(db, query) }) },
      listJournal: { run: ({ query }, { db }) => ({ body: listJournal(db, query) }) },
      exportJournal: {
        run: ({ query }, ctx) => ({ file: startExport(ctx, journalSpec, query, toJournalEntry, journalCsvColumns) }),
      },
    },
    close: stopChain,
  };
};
