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
import { startAuditForward } from '../audit-forward/start.js';
import { listCheckpoints } from '../audit-chain/checkpoint-list.js';
import { sealHash } from '../governance/audit-seal.js';
import { consistencyProofOf, inclusionProofOf } from '../audit-chain/proofs.js';
import { addCosignature } from '../audit-chain/cosignatures.js';
import { searchAllowance } from '../governance/search-allowance.js';
import type { Readable } from 'node:stream';
import type { HandlerContext } from '../http/route-kit.js';

/** Read side of governance: audit trail and agent journal, paged lists, summaries and streamed exports. */
export const governanceGroup: GroupFactory = ({ db, options, log }) => {
  const stopChain = startAuditChain(db, options.dataDir);
  let stopForward: () => Promise<void>;
  try {
    stopForward = startAuditForward(db, options.config, log);
  } catch (err) {
    stopChain();
    throw err;
  }
  const allowance = searchAllowance();
  /** A read that may search: refused while its caller's search time is spent, else charged its time. */
  const searching = async <T>(ctx: HandlerContext, query: { q?: string }, read: () => T): Promise<T> =>
    query.q === undefined ? read() : allowance.spend(ctx.principal.subject, read);
  /** An export with a text search is one of its caller's searches under way until its stream ends. */
  const exporting = async <F extends { stream: Readable }>(
    ctx: HandlerContext,
    query: { q?: string },
    start: () => F | Promise<F>,
  ): Promise<F> => {
    if (query.q === undefined || ctx.head) return start();
    const release = allowance.hold(ctx.principal.subject);
    try {
      const file = await start();
      file.stream.once('close', release);
      return file;
    } catch (err) {
      release();
      throw err;
    }
  };
  return {
    handlers: {
      listAudit: {
        allow: 'any role',
        audit: null,
        run: async ({ query }, ctx) => ({ body: await searching(ctx, query, () => listAudit(ctx.db, query)) }),
      },
      exportAudit: {
        allow: 'any role',
        audit: null,
        run: async ({ query }, ctx) => {
          const file = await exporting(ctx, query, () => startAuditExport(ctx, query));
          return { file, headers: file.headers };
        },
      },
      auditSummary: {
        allow: 'any role',
        audit: null,
        run: async ({ query }, ctx) => ({ body: await searching(ctx, query, () => summarizeAudit(ctx.db, query)) }),
      },
      listAuditCheckpoints: {
        allow: 'any role',
        audit: null,
        run: ({ query }, { db }) => ({ body: listCheckpoints(db, query) }),
      },
      // changes nothing but the trail, as an export: an auditor seals the pack it made
      sealAudit: {
        allow: 'any role',
        audit: { action: 'audit.seal', target: () => ({ type: 'audit', id: null }) },
        run: ({ body }, { db }) => sealHash(db, body),
      },
      auditInclusionProof: {
        allow: 'any role',
        audit: null,
        run: ({ query }, { db }) => ({ body: inclusionProofOf(db, query) }),
      },
      auditConsistencyProof: {
        allow: 'any role',
        audit: null,
        run: ({ query }, { db }) => ({ body: consistencyProofOf(db, query) }),
      },
      // changes nothing but the trail's evidence, as a seal: a witness signs in as an auditor
      cosignAuditCheckpoint: {
        allow: 'any role',
        audit: { action: 'audit.checkpoint.cosign', target: () => ({ type: 'audit_checkpoint', id: null }) },
        run: ({ body }, { db, config }) => addCosignature(db, body, config.audit_witnesses),
      },
      journalSummary: {
        allow: 'any role',
        audit: null,
        run: async ({ query }, ctx) => ({ body: await searching(ctx, query, () => summarizeJournal(ctx.db, query)) }),
      },
      listJournal: {
        allow: 'any role',
        audit: null,
        run: async ({ query }, ctx) => ({ body: await searching(ctx, query, () => listJournal(ctx.db, query)) }),
      },
      exportJournal: {
        allow: 'any role',
        audit: null,
        run: async ({ query }, ctx) => ({
          file: await exporting(ctx, query, () =>
            startExport(ctx, journalSpec, query, toJournalEntry, journalCsvColumns),
          ),
        }),
      },
    },
    close: async () => {
      stopChain();
      await stopForward();
    },
  };
};
