/** `E` on the audit screen: an evidence pack for a range, made with the scheme's pack code (as the CLI's). */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PackSource } from '../../audit-chain/evidence-pack.js';
import { isoSeconds, parseTimeInput } from '../../text/time-input.js';
import type { ActionContext, ScreenAction } from '../kit/screen-api.js';
import { thousands } from '../../text/thousands.js';
import { VERSION } from '../../contract/version.js';

export function evidenceAction<Row>(): ScreenAction<Row> {
  return {
    key: 'E',
    label: 'evidence pack',
    hintShort: 'evidence',
    mutates: false,
    // what an auditor opens the audit screen for: on an 80-column hint line before the paging keys
    hintPriority: 65,
    capability: 'audit.export',
    async run(ctx) {
      const stamp = isoSeconds(Date.now()).replace(/[-:]/g, '');
      const folder = `evidence-${stamp}`;
      const v = await ctx.form({
        title: 'Make an evidence pack',
        // one paragraph: the dialog wraps it to its width (lines broken here came out ragged at 80 columns)
        message:
          'The audit trail (JSON Lines and CSV, with the signed checkpoints and public keys), the journal, the key ' +
          'inventory (never a secret), the role matrix, settings, deployment, models, routing and budgets, and a ' +
          'manifest of every file. Making it is audited.',
        fields: [
          {
            kind: 'text',
            name: 'since',
            label: 'Since',
            initial: '30d',
            required: true,
            maxLength: 40,
            hint: 'a duration before now (30d, 12h) or an RFC 3339 time',
            validate: (t) =>
              parseTimeInput(t) === null ? 'a duration like 30d or a time like 2026-11-01T00:00:00Z' : null,
          },
          {
            kind: 'text',
            name: 'folder',
            label: 'Folder',
            initial: ctx.exportFolder ? join(ctx.exportFolder, folder) : `./${folder}`,
            required: true,
            maxLength: 1024,
            hint: `must not exist or be empty; relative to ${process.cwd()}`,
          },
        ],
        submitLabel: 'make the pack',
      });
      if (!v) return;
      const since = parseTimeInput(String(v.since))!;
      const dir = resolve(process.cwd(), String(v.folder).replace(/^~(?=\/|$)/, homedir()));
      return await makePack(ctx, since, dir);
    },
  };
}

async function makePack(ctx: ActionContext, since: string, dir: string) {
  const p = ctx.progress({
    title: 'Making an evidence pack',
    lines: ['waiting for the appliance…', `in ${dir}`],
    escStops: true,
  });
  let made;
  // not loaded with the dashboard (see src/dashboard/history/export.ts): a pack is rare, and its code
  // needs node:crypto and node:fs/promises
  const pack = await import('../../audit-chain/evidence-pack.js');
  try {
    made = await pack.writeEvidencePack(await dashboardSource(ctx, pack.stopReading), dir, {
      since,
      madeAt: new Date().toISOString(),
      url: ctx.applianceUrl,
      holdsToken: await ctx.tokenMatcher(),
      tool: { name: 'appliance-admin', version: VERSION },
      onStep: (what) => p.update({ lines: [what, `in ${dir}`] }),
      signal: p.signal,
    });
  } catch (err) {
    if (p.signal.aborted)
      return {
        title: 'Pack stopped',
        tone: 'warn' as const,
        summary: [`You stopped it: nothing was written to ${dir}.`],
      };
    if (err instanceof pack.PackError) return { title: 'No pack made', tone: 'bad' as const, summary: [err.message] };
    throw err;
  } finally {
    p.close();
  }
  if (!made.ok)
    return {
      title: 'No pack made',
      tone: 'bad' as const,
      summary: [
        `${made.file} line ${thousands(made.line)} held ${made.secret}: the pack was removed, nothing is left behind.`,
      ],
    };
  return {
    title: 'Evidence pack written',
    tone: 'ok' as const,
    summary: [
      `folder  ${dir}`,
      `files   ${made.files}`,
      `audit   ${pack.auditTrailSummary(made, since)}`,
      '',
      // without --key, verify trusts the keys the pack itself holds
      `check it with appliance-admin evidence verify ${dir} --key KEY.pem (the appliance's public key)`,
    ],
  };
}

/**
 * The pack's source over the dashboard's client: every answer as served (evidence is written as it
 * came, never the sanitized text the dashboard shows), the exports as they stream.
 */
async function dashboardSource(
  ctx: ActionContext,
  stopReading: (body: AsyncIterable<Buffer>) => Promise<void>,
): Promise<PackSource> {
  const { exportTypeProblem } = await import('../../client/download.js');
  const { TransportError } = await import('../../client/errors.js');
  const served = ctx.served;
  return {
    json: (route, query, signal) => served(route, { ...(query ? { query } : {}), signal }),
    async export(route, query, signal) {
      const res = await ctx.stream(route, query, signal);
      const wrongType = exportTypeProblem(String(query.format), res.header('content-type'));
      if (wrongType) {
        await stopReading(res.body);
        throw new TransportError('protocol', `the answer is not an export: ${wrongType}`);
      }
      return res;
    },
    seal: (request, signal) => served('sealAudit', { body: request, signal }),
  };
}
