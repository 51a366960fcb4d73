/** `E` on the audit screen: an evidence pack for a range, made with the CLI's own pack code. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { JsonRouteName } from '../../src/client/api-client.js';
import type { PackSource } from '../../src/cli/evidence-pack.js';
import { isoSeconds, parseTimeInput } from '../../src/text/time-input.js';
import type { ActionContext, ScreenAction } from '../../src/ui/screen-api.js';
import { thousands } from '../../src/text/thousands.js';

export function evidenceAction<Row>(): ScreenAction<Row> {
  return {
    key: 'E',
    label: 'evidence pack',
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
  // not loaded with the dashboard (see screens/shared/history/export.ts): a pack is rare
  const { mkdir, readdir, rm } = process.getBuiltinModule('node:fs/promises');
  const existing = await readdir(dir).catch(() => null);
  if (existing?.length) throw new Error(`${dir} is not empty: choose another folder for the pack. Nothing was made.`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const p = ctx.progress({ title: 'Making an evidence pack', lines: ['waiting for the appliance…', `in ${dir}`] });
  let made;
  let pack: typeof import('../../src/cli/evidence-pack.js');
  try {
    // the pack's code needs node:crypto and node:fs/promises, which the dashboard loads only when used
    pack = await import('../../src/cli/evidence-pack.js');
    made = await pack.makeEvidencePack(await dashboardSource(ctx, p.signal), dir, {
      since,
      madeAt: new Date().toISOString(),
      url: ctx.applianceUrl,
      token: '',
      onStep: (what) => p.update({ lines: [what, `in ${dir}`] }),
    });
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    if (p.signal.aborted)
      return { title: 'Pack stopped', tone: 'warn' as const, summary: ['You stopped it: the folder was removed.'] };
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
 * The pack's source over the dashboard's client. Its answers are made terminal-safe (every
 * string one line), so the public keys' PEM is built again whole for the pack.
 */
async function dashboardSource(ctx: ActionContext, signal: AbortSignal): Promise<PackSource> {
  return {
    async json(route, query) {
      const data = await ctx.call(route as JsonRouteName, { ...(query ? { query } : {}), signal });
      if (route !== 'listAuditCheckpoints') return data;
      const list = data as { public_keys: { public_key_pem: string }[] };
      return {
        ...list,
        public_keys: list.public_keys.map((k) => ({ ...k, public_key_pem: wholePem(k.public_key_pem) })),
      };
    },
    async exportTo(route, query, file) {
      const got = await ctx.download(route, query, file, undefined, signal);
      return { headers: got.auditChain, lines: got.lines };
    },
  };
}

/** A served PEM whole again, from the client's one-line (sanitized) text of it. */
function wholePem(served: string): string {
  const body = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----/
    .exec(served)?.[1]
    .replace(/\s+/g, '');
  return body ? `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n` : '';
}
