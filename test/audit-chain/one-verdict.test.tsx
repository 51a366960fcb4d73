import { createPublicKey } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/audit-chain/checkpoint.js';
import { readKeysFile, type PinnedAuditKey } from '../../src/audit-chain/keys-file.js';
import { keepCheckpoint, memoryOf } from '../../src/audit-chain/memory.js';
import { statementFileOf } from '../../src/audit-chain/statement-file.js';
import { EXIT_STATUS, VERDICT_WORDS, type Verdict } from '../../src/audit-chain/verdict.js';
import { ensureBuilt } from '../helpers/child-server.js';
import { runCli, writeTokenFile } from '../helpers/cli.js';
import { renderDashboard } from '../helpers/dashboard.js';
import { tempDir } from '../helpers/fixtures.js';
import { startHostile, type HostileServer } from '../helpers/hostile-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * One trail, one verdict (issue 36): the same export, as a peer between the auditor and the
 * appliance serves it, is judged alike by `audit verify FILE`, `audit verify --url` and the
 * dashboard's V, each with the same exit status or the same result title. The cases are the
 * issue's: an intact trail, the signed statement stripped (unsigned scope), a header that says
 * "filtered" over a cut trail, another export's statement, a duplicate key in a line, and the
 * keys the appliance served rather than a pinned one.
 */
let s: TestServer;
let peer: HostileServer;
let token: string;
let pinned: PinnedAuditKey;
let dir: string;

interface Served {
  headers: Record<string, string>;
  body: string;
}

async function upstream(query = 'format=jsonl'): Promise<Served> {
  const r = await request(`${s.url}/v1/admin/audit/export?${query}`, {
    headers: { authorization: `Bearer ${s.tokens.auditor}` },
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-ndjson' };
  for (const h of ['audit-checkpoint', 'audit-export-statement'])
    if (typeof r.headers[h] === 'string') headers[h] = r.headers[h] as string;
  return { headers, body: await r.body.text() };
}

interface Case {
  name: string;
  verdict: Verdict;
  /** the offline verdict when it differs; null: there is no file to check offline */
  offline?: Verdict | null;
  pin: boolean;
  /** null: the appliance refuses the export (500 SVC-AUDIT-CHAIN) */
  serve: () => Promise<Served | null>;
  /** a checkpoint kept from earlier, edited (given as --since, and kept in the dashboard's memory) */
  editedKept?: boolean;
  /** what V's result says, beyond its title */
  v?: RegExp;
}

const CASES: Case[] = [
  { name: 'an intact trail', verdict: 'verified', pin: true, serve: () => upstream() },
  {
    name: 'the signed statement stripped',
    verdict: 'broken',
    pin: true,
    serve: async () => {
      const u = await upstream();
      return { headers: { 'content-type': u.headers['content-type'] }, body: u.body };
    },
  },
  {
    name: 'a header that says "filtered" over a trail cut by 11',
    verdict: 'broken',
    pin: true,
    serve: async () => {
      const u = await upstream();
      const kept = u.body.split('\n').filter((l, i) => l && (i < 5 || i > 15));
      return { headers: { ...u.headers, 'audit-export-filtered': 'true' }, body: `${kept.join('\n')}\n` };
    },
  },
  {
    // live, it is not the export asked for; offline, the file is that filtered export, and verifies as such
    name: "another export's statement",
    verdict: 'broken',
    offline: 'verified',
    pin: true,
    serve: () => upstream('format=jsonl&actor=alice-admin'),
  },
  {
    name: 'a duplicate key in a line',
    verdict: 'broken',
    pin: true,
    serve: async () => {
      const u = await upstream();
      const lines = u.body.split('\n');
      lines[3] = `{"actor":{"role":null,"subject":"mallory"},${lines[3].slice(1)}`;
      return { ...u, body: lines.join('\n') };
    },
  },
  {
    name: 'the keys the appliance serves, none pinned',
    verdict: 'verified-unpinned',
    pin: false,
    serve: () => upstream(),
  },
  {
    // issue 36 §5: a head forged in the database is not signed; the appliance says so, and that is the verdict
    name: 'the appliance refusing to sign a forged head',
    verdict: 'broken',
    offline: null,
    pin: true,
    serve: async () => null,
    v: /will not sign its audit trail/,
  },
  {
    // issue 36 §6: the kept checkpoint edited to a forged hash; last, as the dashboard keeps it for the run
    name: 'a kept checkpoint edited to another hash',
    verdict: 'broken',
    pin: true,
    serve: () => upstream(),
    editedKept: true,
    v: /the kept checkpoint #[\d,]+ is not signed by/,
  },
];

const REFUSAL = {
  type: 'about:blank',
  title: 'Internal Server Error',
  status: 500,
  code: 'SVC-AUDIT-CHAIN',
  detail:
    'the appliance will not sign its audit trail: entry #3 is not what this appliance signed: the trail was rewritten',
};

/** What the peer serves for the export now. */
let current: Served | null = null;
const reply = (_req: unknown, res: ServerResponse) => {
  if (!current) {
    res.writeHead(500, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify(REFUSAL));
    return;
  }
  res.writeHead(200, current.headers);
  res.end(current.body);
};

beforeAll(async () => {
  await ensureBuilt();
  s = await startTestServer();
  for (let i = 0; i < 25; i++)
    expect((await s.call('POST', '/gateway/keys', { body: { name: `one-${i}` } })).status).toBe(201);
  peer = await startHostile({ upstream: s.url });
  peer.set('/audit/export', reply);
  token = writeTokenFile(s.tokens.auditor);
  dir = tempDir('aa-one-verdict');
  const keys = await s.call('GET', '/audit/checkpoints', { role: 'auditor' });
  const file = join(dir, 'appliance.pem');
  writeFileSync(file, keys.json.public_keys[0].public_key_pem);
  const read = readKeysFile(file);
  if (typeof read === 'string') throw new Error(read);
  pinned = read;
}, 120_000);

/** The newest checkpoint the appliance lists, its hash edited, as a --since file. */
async function editedKeptCheckpoint() {
  const list = await s.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' });
  const checkpoint = { ...list.json.data[0], hash: 'a'.repeat(64) };
  const file = join(dir, 'kept-edited.json');
  writeFileSync(file, JSON.stringify(checkpoint));
  return { file, checkpoint };
}

const pinnedFingerprint = () => keyFingerprint(createPublicKey(pinned.pem));

afterAll(async () => {
  await peer?.close();
  await s?.close();
});

describe('one trail, one verdict: every verifier agrees', () => {
  for (const c of CASES)
    it(`${c.name}: ${VERDICT_WORDS[c.verdict]} everywhere`, async () => {
      current = await c.serve();
      const key = c.pin ? ['--key', pinned.file] : [];
      const kept = c.editedKept ? await editedKeptCheckpoint() : null;
      const since = kept ? ['--since', kept.file] : [];

      // audit verify FILE: the file and its statement as an export leaves them
      if (current && c.offline !== null) {
        const file = join(dir, `${c.name.replace(/\W+/g, '-')}.jsonl`);
        writeFileSync(file, current.body);
        const statement = statementFileOf({
          statement: current.headers['audit-export-statement'] ?? null,
          checkpoint: current.headers['audit-checkpoint'] ?? null,
        });
        if (statement.text !== null) writeFileSync(`${file}.checkpoint.json`, statement.text);
        // offline there is no appliance to serve keys: the file is checked with the key given
        const offline = await runCli(['audit', 'verify', file, '--key', pinned.file, ...since]);
        const expectedOffline = c.offline ?? (c.verdict === 'verified-unpinned' ? 'verified' : c.verdict);
        expect(offline.code, offline.stdout).toBe(EXIT_STATUS[expectedOffline]);
      }

      // audit verify --url, through the peer
      const live = await runCli(['audit', 'verify', '--url', peer.url, '--token-file', token, ...key, ...since]);
      expect(live.code, live.stdout).toBe(EXIT_STATUS[c.verdict]);
      if (c.v) expect(live.stdout).toMatch(c.v);

      // the dashboard keeps the edited checkpoint as it would one it kept earlier in the run
      if (kept) keepCheckpoint(memoryOf([pinnedFingerprint()]), kept.checkpoint);

      // the dashboard's V, through the peer
      const d = renderDashboard({
        url: peer.url,
        token: s.tokens.auditor,
        role: 'auditor',
        screen: 'audit',
        columns: 220,
        ...(c.pin ? { auditKey: pinned } : {}),
      });
      try {
        await d.waitForText(/chain (checks out|checking)|CHAIN BROKEN/);
        await d.press('V');
        // V's result dialog, not the header: a broken verify of an earlier case keeps the header saying CHAIN BROKEN
        const title =
          c.verdict === 'broken'
            ? /ERROR\s+CHAIN BROKEN/
            : c.verdict === 'cannot-check'
              ? 'Audit trail: could not check'
              : 'Audit trail verified';
        const f = await d.waitForText(title, 15_000);
        if (c.v) expect(f.replace(/[│\s]+/g, ' ')).toMatch(c.v);
        if (c.verdict === 'verified') expect(f).not.toContain('unpinned');
        if (c.verdict === 'verified-unpinned') expect(f).toContain(VERDICT_WORDS['verified-unpinned']);
      } finally {
        await d.unmount();
      }
    });
});
