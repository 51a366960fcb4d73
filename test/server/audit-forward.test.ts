import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAudit } from '../../src/server/audit.js';
import { AuditForward, loadConfig, type ServerConfig } from '../../src/server/config.js';
import { buildServer } from '../../src/server/app.js';
import { deploymentLines } from '../../src/dashboard/triage/deployment.js';
import type { Deployment } from '../../src/contract/index.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { startRsyslog, type Rsyslog } from '../helpers/rsyslog.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ensureBuilt, start as startChild } from '../helpers/child-server.js';
import { ensureDataDir, openDatabase } from '../../src/server/db/open.js';
import type { Db } from '../../src/server/db/sqlite-driver.js';
import { forwardedSeq } from '../../src/server/audit-forward/position.js';
import { insertLinked, type AuditRow } from '../../src/server/audit-chain/chain.js';
import { runCli } from '../helpers/cli.js';
import { checkpointOf } from '../helpers/audit-chain.js';
import { until } from '../helpers/until.js';
import { thousands } from '../../src/text/thousands.js';
import { makeCertificates } from '../helpers/tls.js';

/**
 * The audit trail's copy off the host (docs/operations.md, "A copy off the host") against a real
 * rsyslog over TLS: every entry arrives in order as the export's own line and the receiver's file
 * verifies with `audit verify`; a restart of the server resumes from its position; a receiver
 * killed for a minute while entries keep coming loses none; a bad configuration stops the start.
 */

const LINE = /^<(\d+)>1 (\S+) (\S+) (\S+) (\S+) (\S+) \[aa-audit@32473 seq="(\d+)" hash="([0-9a-f]{64})"\] (.*)$/s;
interface CopyLine {
  pri: number;
  app: string;
  msgId: string;
  seq: number;
  hash: string;
  msg: string;
}
const parse = (line: string): CopyLine => {
  const m = LINE.exec(line);
  if (!m) throw new Error(`not a forwarded line: ${line.slice(0, 200)}`);
  return { pri: Number(m[1]), app: m[4], msgId: m[6], seq: Number(m[7]), hash: m[8], msg: m[9] };
};
/** A signed checkpoint's message: MSGID checkpoint, the checkpoint as served as MSG. */
const CHECKPOINT_LINE =
  /^<\d+>1 \S+ \S+ appliance-admin \S+ checkpoint \[aa-checkpoint@32473 seq="(\d+)"(?: tree_size="(\d+)")?\] (.*)$/s;
const isEntry = (line: string) => !CHECKPOINT_LINE.test(line);
/** The entries' lines of the copy (each checkpoint is a line of its own). */
const entryLines = (rs: Rsyslog) => rs.lines().filter(isEntry);
const copyOf = (rs: Rsyslog) => entryLines(rs).map(parse);
const seqsOf = (rs: Rsyslog) => new Set(copyOf(rs).map((l) => l.seq));

let n = 0;
/** Entries as a mutation writes them (audit.ts), in this process: the server's own writer. */
const write = (t: TestServer | Db, count: number) => {
  const db = 'server' in t ? t.server.db : t;
  for (let i = 0; i < count; i++)
    recordAudit(db, {
      actor: { subject: 'forward-test', role: 'it_admin' },
      action: 'gateway.key.create',
      target: { type: 'gateway_key', id: `key_${++n}`, name: `näme "${n}" \\ ü` },
      outcome: 'success',
      status: 201,
      request_id: `req_forward_${n}`,
      source_ip: '10.0.0.5',
      details: { n, text: 'tab\there, del\u007f, line\u2028sep' },
    });
};
/** A row as the chain links it (chain.ts), for a trail written in bulk. */
const bulkRow = (i: number): AuditRow => ({
  id: `aud_bulk${String(i).padStart(12, '0')}`,
  at: new Date(Date.UTC(2026, 10, 1) + i).toISOString(),
  at_ms: Date.UTC(2026, 10, 1) + i,
  actor_subject: 'bulk',
  actor_role: 'it_admin',
  action: 'gateway.key.create',
  target_type: 'gateway_key',
  target_id: `key_${i}`,
  target_name: null,
  outcome: 'success',
  status: 201,
  request_id: `req_bulk${i}`,
  source_ip: null,
  details: '{}',
});
const head = (t: TestServer | Db) =>
  (('server' in t ? t.server.db : t).prepare('SELECT max(seq) FROM audit').pluck().get() as number) ?? 0;

let rs: Rsyslog;
let root: string;
let t: TestServer;
let dataDir: string;
let config: ServerConfig;

const startServer = () =>
  startTestServer({
    dataDir,
    config: () => config,
    background: { firstMs: 100, maxMs: 1000 },
  });

/** Exports the whole trail (which signs a checkpoint of its head): its lines, checkpoint and key files. */
async function exportTrail(label: string) {
  const res = await t.call('GET', '/audit/export?format=jsonl', { role: 'auditor' });
  expect(res.status).toBe(200);
  const checkpoint = JSON.parse(String(res.headers['audit-checkpoint'])) as { seq: number; hash: string };
  const cpFile = join(root, `${label}.checkpoint.json`);
  writeFileSync(cpFile, JSON.stringify(checkpoint));
  const list = await t.call('GET', '/audit/checkpoints?limit=1', { role: 'auditor' });
  const keyFile = join(root, `${label}.pem`);
  writeFileSync(keyFile, list.json.public_keys.map((k: { public_key_pem: string }) => k.public_key_pem).join(''));
  return { lines: res.text.split('\n').filter(Boolean), checkpoint, cpFile, keyFile };
}

beforeAll(async () => {
  root = tempDir('aa-forward');
  rs = await startRsyslog(join(root, 'rsyslog'));
  dataDir = join(root, 'data');
  config = {
    ...fixtureConfig(root),
    audit_forward: AuditForward.parse({
      url: `syslog-tls://127.0.0.1:${rs.port}`,
      ca_file: rs.caFile,
      warn_after_seconds: 2,
    }),
  };
  t = await startServer();
  await ensureBuilt();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await rs?.stop();
});

describe('forwarding the audit trail to rsyslog over TLS', () => {
  it('sends every entry in order, as the export writes it, and the copy verifies with audit verify', async () => {
    write(t, 300);
    const ex = await exportTrail('first');
    await until('the copy to reach the export', () => seqsOf(rs).has(ex.checkpoint.seq), 20_000);
    const copy = copyOf(rs);
    // in order, each once (nothing failed, so nothing was sent again), from #1
    expect(copy.map((l) => l.seq)).toEqual(copy.map((_, i) => i + 1));
    // authpriv.notice, our APP-NAME and MSGID, seq and hash in the structured data
    expect(copy[0]).toMatchObject({ pri: 10 * 8 + 5, app: 'appliance-admin', msgId: 'audit' });
    // MSG is exactly the export's line of that entry, byte for byte
    for (const [i, line] of ex.lines.entries()) {
      expect(copy[i].msg).toBe(line);
      expect(JSON.parse(copy[i].msg)).toMatchObject({ seq: copy[i].seq, hash: copy[i].hash });
    }
    const r = await runCli(['audit', 'verify', rs.file, '--key', ex.keyFile, '--checkpoint', ex.cpFile]);
    expect(r.stdout).toContain(`verified: the whole trail, entries #1–#${thousands(ex.checkpoint.seq)} (`);
    expect(r.code).toBe(0);
    // the settings say where the copy goes
    const settings = (await t.call('GET', '/settings', { role: 'auditor' })).json as {
      sections: { name: string; values: Record<string, unknown> }[];
    };
    expect(settings.sections.find((x) => x.name === 'audit_forward')?.values).toMatchObject({
      configured: true,
      url: `syslog-tls://127.0.0.1:${rs.port}`,
      ca_file: rs.caFile,
    });
  }, 60_000);

  it('refuses a copy changed after it arrived, and takes an entry sent twice as one', async () => {
    const ex = await exportTrail('tamper');
    await until('the copy to reach the export', () => seqsOf(rs).has(ex.checkpoint.seq), 20_000);
    const lines = entryLines(rs).filter((l) => parse(l).seq <= ex.checkpoint.seq);
    const check = async (name: string, content: string[]) => {
      const f = join(root, name);
      writeFileSync(f, `${content.join('\n')}\n`);
      return runCli(['audit', 'verify', f, '--key', ex.keyFile, '--checkpoint', ex.cpFile]);
    };
    // the same entry again (what a resend after an outage leaves): one entry
    const repeated = await check('repeated.log', [...lines.slice(0, 20), ...lines.slice(10)]);
    expect(repeated.stdout).toContain('10 entries were sent again');
    expect(repeated.code).toBe(0);
    // an entry changed in the receiver's file
    const changed = lines.map((l, i) => (i === 5 ? l.replace('forward-test', 'forward-tesT') : l));
    const broken = await check('changed.log', changed);
    expect(broken.stdout).toContain('entry #6');
    expect(broken.code).toBe(1);
    // another entry in the place of one already there (its own hash recomputes): two claim one seq
    const other = JSON.parse(parse(lines[7]).msg) as Record<string, unknown>;
    const forged = lines[7].replace(
      parse(lines[7]).msg,
      parse(lines[8]).msg.replace(/"seq":\d+/, `"seq":${other.seq}`),
    );
    const twice = await check('twice.log', [...lines.slice(0, 9), forged, ...lines.slice(9)]);
    expect(twice.code).toBe(1);
    // a copy without a checkpoint (its checkpoints' lines left out) cannot be proven: the verifier says what to give it
    const bare = join(root, 'bare.log');
    writeFileSync(bare, `${lines.join('\n')}\n`);
    const none = await runCli(['audit', 'verify', bare, '--key', ex.keyFile]);
    expect(none.stdout).toContain(
      'this syslog copy carries no signed checkpoint (forwarded by an older version, or cut before the first one): ' +
        'give a checkpoint the appliance signed with --checkpoint',
    );
    expect(none.code).toBe(1);
  }, 60_000);

  it('forwards each signed checkpoint in order with the entries: the copy verifies without --checkpoint', async () => {
    write(t, 40);
    const ex = await exportTrail('carried');
    const checkpointAt = (lines: string[], seq: number) =>
      lines.findIndex((l) => CHECKPOINT_LINE.exec(l)?.[1] === String(seq));
    await until("the export's checkpoint in the copy", () => checkpointAt(rs.lines(), ex.checkpoint.seq) >= 0, 20_000);
    const lines = rs.lines();
    const carried = lines.filter((l) => !isEntry(l)).map((l) => CHECKPOINT_LINE.exec(l)!);
    // every checkpoint the appliance signed so far, each after the line of the entry it signs
    const list = (await t.call('GET', '/audit/checkpoints?limit=500', { role: 'auditor' })).json.data as {
      seq: number;
      tree_size: number;
    }[];
    expect(new Set(carried.map((m) => Number(m[1])))).toEqual(new Set(list.map((c) => c.seq)));
    for (const m of carried) {
      const seq = Number(m[1]);
      const entryAt = lines.findIndex((l) => isEntry(l) && parse(l).seq === seq);
      expect(entryAt, `entry #${seq}`).toBeGreaterThanOrEqual(0);
      expect(lines.indexOf(m[0])).toBeGreaterThan(entryAt);
    }
    // the message is the checkpoint as served, its signed note included, and its tree size in the structured data
    const newest = list.find((c) => c.seq === ex.checkpoint.seq)!;
    const m = CHECKPOINT_LINE.exec(lines[checkpointAt(lines, ex.checkpoint.seq)])!;
    expect(JSON.parse(m[3])).toEqual(newest);
    expect(Number(m[2])).toBe(newest.tree_size);
    expect(JSON.parse(m[3]).note).toMatch(/^appliance-admin\/[0-9a-f]{16}\n\d+\n/);
    // the receiver's file proves itself: no checkpoint brought from elsewhere
    const r = await runCli(['audit', 'verify', rs.file, '--key', ex.keyFile]);
    expect(r.stdout).toContain(`verified: the whole trail, entries #1–#${thousands(ex.checkpoint.seq)} (`);
    expect(r.stdout).toContain(
      `proven by the newest signed checkpoint the copy carries, #${thousands(ex.checkpoint.seq)}`,
    );
    expect(r.code).toBe(0);
    // cut before its newest checkpoint, the copy is proven up to the one before, and says what it left
    const upTo = carried
      .map((x) => Number(x[1]))
      .filter((seq) => seq < ex.checkpoint.seq)
      .at(-1)!;
    const cutFile = join(root, 'cut.log');
    writeFileSync(cutFile, `${lines.slice(0, checkpointAt(lines, ex.checkpoint.seq)).join('\n')}\n`);
    const cut = await runCli(['audit', 'verify', cutFile, '--key', ex.keyFile]);
    expect(cut.stdout).toContain(`verified: the whole trail, entries #1–#${thousands(upTo)} (`);
    expect(cut.stdout).toMatch(/entr(y|ies) after the checkpoint's #[\d,]+ (is|are) not covered by it/);
    expect(cut.code).toBe(0);
  }, 60_000);

  it("refuses a copy whose checkpoint was changed, or another key's, or one that signs another entry", async () => {
    const ex = await exportTrail('carried-tamper');
    const at = (lines: string[]) => lines.findIndex((l) => CHECKPOINT_LINE.exec(l)?.[1] === String(ex.checkpoint.seq));
    await until("the export's checkpoint in the copy", () => at(rs.lines()) >= 0, 20_000);
    const lines = rs.lines().slice(0, at(rs.lines()) + 1);
    const i = at(lines);
    const check = async (name: string, content: string[], key = ex.keyFile) => {
      const f = join(root, name);
      writeFileSync(f, `${content.join('\n')}\n`);
      return runCli(['audit', 'verify', f, '--key', key]);
    };
    // its time changed in the receiver's file: its signature no longer verifies
    const changed = lines.map((l, k) => (k === i ? l.replace(/"at":"[^"]+"/, '"at":"2020-01-01T00:00:00.000Z"') : l));
    const r1 = await check('cp-changed.log', changed);
    expect(r1.stdout).toMatch(
      /the checkpoint #[\d,]+ of 2020-01-01T00:00:00.000Z does not verify with the key you pinned: it was changed in the copy/,
    );
    expect(r1.code).toBe(1);
    // verified with another key than the appliance's: the copy's checkpoints prove nothing to it
    const otherKey = join(root, 'other.pem');
    writeFileSync(otherKey, generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }));
    const r2 = await check('cp-other-key.log', lines, otherKey);
    expect(r2.stdout).toMatch(/checkpoints this syslog copy carries are signed by another key than the one given/);
    expect(r2.code).toBe(1);
    // a second checkpoint of the entry before, signed with the appliance's own key (as whoever holds it could)
    // for another hash: the copy's entries still verify to the newest, but two signed histories meet in it
    const privateKey = createPrivateKey(readFileSync(join(dataDir, 'audit-signing-key.pem')));
    const fingerprint = (await t.call('GET', '/audit/checkpoints?limit=1')).json.public_keys[0].fingerprint as string;
    const forged = checkpointOf(
      { seq: ex.checkpoint.seq - 1, prev_hash: '0'.repeat(64), hash: 'ab'.repeat(32) },
      { privateKey, fingerprint, publicKeyPem: '' },
    );
    const forgedLine = lines[i].replace(
      /seq="\d+"(?: tree_size="\d+")?\] .*$/s,
      `seq="${forged.seq}"] ${JSON.stringify(forged)}`,
    );
    const r3 = await check('cp-forked.log', [...lines.slice(0, i), forgedLine, ...lines.slice(i)]);
    expect(r3.stdout).toContain(
      `entry #${thousands(forged.seq)} is not what the checkpoint of ${forged.at} signed: the trail was rewritten after it`,
    );
    expect(r3.code).toBe(1);
  }, 60_000);

  it('resumes from its position after a server restart, sending nothing twice', async () => {
    write(t, 50);
    const before = head(t);
    await until('the copy to be up to date', async () => {
      const dep = (await t.call('GET', '/deployment')).json as Deployment;
      return dep.audit_forward?.behind === 0 && dep.audit_forward.forwarded_seq >= before;
    });
    await t.close();
    t = await startServer();
    write(t, 50);
    const after = head(t);
    await until('the copy to reach the new head', () => seqsOf(rs).has(after), 20_000);
    const seqs = copyOf(rs).map((l) => l.seq);
    const seen = new Map<number, number>();
    for (const s of seqs) seen.set(s, (seen.get(s) ?? 0) + 1);
    for (let s = 1; s <= after; s++) expect(seen.get(s), `entry #${s}`).toBe(1);
  }, 60_000);

  it('resumes after the server was killed in the middle of a round: the round is sent again, nothing lost', async () => {
    // a receiver of its own: this appliance's trail has its own seq 1, 2, …
    const rs2 = await startRsyslog(join(root, 'rsyslog-crash'));
    const dir = join(root, 'crash-data');
    const url = `syslog-tls://127.0.0.1:${rs2.port}`;
    // a trail the receiver has not seen, written beside the server as the host CLI writes (another connection)
    ensureDataDir(dir);
    const db = openDatabase(dir);
    db.transaction(() =>
      insertLinked(
        db,
        Array.from({ length: 20_000 }, (_, i) => bulkRow(i)),
      ),
    )();
    const written = head(db);
    let child = await startChild(dir, {
      config: { ...fixtureConfig(root), audit_forward: AuditForward.parse({ url, ca_file: rs2.caFile }) },
    });
    try {
      await until('the copy to be under way', () => rs2.lines().length > 500, 20_000);
      await child.kill('SIGKILL');
      const taken = forwardedSeq(db, url);
      const arrived = entryLines(rs2).length;
      child = await child.restart();
      write(db, 10);
      const last = head(db);
      // a resend runs in order up to the head: the last line is the last entry once it is there
      await until('the copy to hold the last entry', () => entryLines(rs2).at(-1)?.includes(` seq="${last}" `), 60_000);
      const seqs = new Set(copyOf(rs2).map((l) => l.seq));
      const lost = [];
      for (let seq = 1; seq <= last; seq++) if (!seqs.has(seq)) lost.push(seq);
      expect(lost).toEqual([]);
      // killed before the receiver had it all, and it resumed from what it had saved as taken
      expect(taken).toBeLessThan(written);
      expect(arrived).toBeLessThan(written);
      // and once the receiver closed that round, its position is the head
      await until('the position to reach the head', () => forwardedSeq(db, url) === last, 20_000);
      // what had arrived after the saved position was sent again: there twice, never missing
      expect(copyOf(rs2).length).toBeGreaterThanOrEqual(last + (arrived - taken));
    } finally {
      db.close();
      await child.stop();
      await rs2.stop();
    }
  }, 90_000);

  it('sends nothing to a receiver whose certificate the configured CA did not sign', async () => {
    const otherCa = join(root, 'other-ca.pem');
    writeFileSync(otherCa, (await makeCertificates('another CA')).ca);
    const linesBefore = rs.lines().length;
    const other = await startTestServer({
      config: (r) => ({
        ...fixtureConfig(r),
        audit_forward: AuditForward.parse({ url: `syslog-tls://127.0.0.1:${rs.port}`, ca_file: otherCa }),
      }),
      background: { firstMs: 100, maxMs: 1000 },
    });
    try {
      write(other, 1);
      const dep = await until('the forwarder to fail', async () => {
        const d = (await other.call('GET', '/deployment')).json as Deployment;
        return d.audit_forward?.error ? d : null;
      });
      expect(dep.audit_forward!.error).toMatch(/certificate/i);
      expect(dep.audit_forward!.forwarded_seq).toBe(0);
      expect(rs.lines().length).toBe(linesBefore);
    } finally {
      await other.close();
    }
  });

  it('loses nothing while the receiver is killed for a minute under load, and the overview says the lag', async () => {
    // the load: ten entries every 20 ms (about 500 a second) until the end of the test
    const writer = setInterval(() => write(t, 10), 20);
    await until('entries to flow to the receiver', () => seqsOf(rs).has(head(t) - 100));
    await rs.stop('SIGKILL');
    const stoppedAt = Date.now();
    const lagging = await until(
      'the deployment to report the copy behind',
      async () => {
        const dep = (await t.call('GET', '/deployment')).json as Deployment;
        const c = dep.components.find((x) => x.name === 'audit-forward');
        return c?.status === 'degraded' && dep.audit_forward?.error ? dep : null;
      },
      20_000,
    );
    expect(lagging.audit_forward!.behind).toBeGreaterThan(0);
    const line = deploymentLines(lagging).find((l) => l.key === 'component:audit-forward');
    expect(line?.what).toBe('Audit copy behind');
    expect(line?.reason).toMatch(/^[\d,]+ entr(y|ies) behind, the oldest unforwarded \d+ s old \(copy to syslog-tls:/);
    await until('a minute of outage under load', () => Date.now() - stoppedAt >= 60_000, 70_000);
    await rs.start();
    await until('entries to flow again', () => seqsOf(rs).has(head(t)), 30_000);
    clearInterval(writer);
    const last = head(t);
    await until('the copy to hold the last entry', () => seqsOf(rs).has(last), 30_000);
    // in order: a resend starts again at or before where the broken round started, never skips ahead
    const order = copyOf(rs).map((l) => l.seq);
    const jumps = order.filter((s, i) => i > 0 && s > order[i - 1] + 1);
    expect(jumps).toEqual([]);
    const seqs = seqsOf(rs);
    const lost = [];
    for (let s = 1; s <= last; s++) if (!seqs.has(s)) lost.push(s);
    expect(lost).toEqual([]);
    const ex = await exportTrail('outage');
    await until('the copy to reach the export', () => seqsOf(rs).has(ex.checkpoint.seq), 20_000);
    const r = await runCli(['audit', 'verify', rs.file, '--key', ex.keyFile, '--checkpoint', ex.cpFile]);
    expect(r.stdout).toContain(`verified: the whole trail, entries #1–#${thousands(ex.checkpoint.seq)} (`);
    expect(r.code).toBe(0);
    // caught up: healthy again, with nothing behind
    const healthy = await until('the copy to be reported up to date', async () => {
      const dep = (await t.call('GET', '/deployment')).json as Deployment;
      return dep.audit_forward?.behind === 0 ? dep : null;
    });
    expect(healthy.audit_forward?.error).toBeNull();
    expect(healthy.components.find((x) => x.name === 'audit-forward')).toMatchObject({
      status: 'healthy',
      message: `up to date (#${thousands(healthy.audit_forward!.head_seq)}) (copy to syslog-tls://127.0.0.1:${rs.port})`,
    });
  }, 150_000);
});

describe('a bad audit_forward configuration', () => {
  it('stops the start with the setting and why', async () => {
    const file = join(root, 'bad.json');
    const bad = (audit_forward: unknown) => {
      writeFileSync(file, JSON.stringify({ audit_forward }));
      return () => loadConfig(file);
    };
    expect(bad({ url: 'syslog-tcp://10.0.0.9:514' })).toThrow(
      /audit_forward\.url: plain syslog-tcp:\/\/ only to a loopback address/,
    );
    expect(bad({ url: 'https://logs.example.net' })).toThrow(/audit_forward\.url: must start with syslog-tls:\/\//);
    expect(bad({ url: 'syslog-tls://u:secret@logs.example.net' })).toThrow(/must hold no user, password or query/);
    expect(bad({ url: 'syslog-tls://logs.example.net', cert_file: 'c.pem' })).toThrow(
      /cert_file and key_file go together/,
    );
    const start = (audit_forward: object) =>
      buildServer({
        dataDir: join(root, 'bad-data'),
        config: { ...fixtureConfig(root), audit_forward: AuditForward.parse(audit_forward) },
      });
    const missing = join(root, 'nowhere', 'ca.pem');
    await expect(start({ url: 'syslog-tls://127.0.0.1:6514', ca_file: missing })).rejects.toThrow(
      `audit_forward.ca_file: cannot read ${missing} (ENOENT)`,
    );
    const notPem = join(root, 'not.pem');
    writeFileSync(notPem, 'hello');
    await expect(start({ url: 'syslog-tls://127.0.0.1:6514', ca_file: notPem })).rejects.toThrow(
      /audit_forward\.ca_file .*not\.pem: (not a usable PEM|holds no PEM certificate)/,
    );
    // from the command line: one line naming the setting and the file, exit 1, no data directory made
    writeFileSync(file, JSON.stringify({ audit_forward: { url: 'syslog-tls://logs.example.net', ca_file: 'no.pem' } }));
    const serve = await runCli(['serve', '--data', join(root, 'never'), '--port', '0', '--config', file]);
    expect(serve.stderr.trim()).toBe(
      `appliance-admin: audit_forward.ca_file: cannot read ${join(root, 'no.pem')} (ENOENT)`,
    );
    expect(serve.code).toBe(1);
    expect(existsSync(join(root, 'never'))).toBe(false);
    // the failed start left the data directory free: a good config starts on it
    const ok = await start({ url: 'syslog-tls://127.0.0.1:6514', ca_file: rs.caFile });
    await ok.close();
    expect(readFileSync(rs.caFile, 'utf8')).toContain('BEGIN CERTIFICATE');
  });
});
