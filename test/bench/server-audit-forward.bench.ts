import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { buildServer } from '../../src/server/app.js';
import { AuditForward, type ServerConfig } from '../../src/server/config.js';
import { openDatabase } from '../../src/server/db/open.js';
import { insertLinked, type AuditRow } from '../../src/server/audit-chain/chain.js';
import { forwarderOf } from '../../src/server/audit-forward/forwarder.js';
import { iso } from '../../src/server/ids.js';
import { fixtureConfig, tempDir } from '../helpers/fixtures.js';
import { startRsyslog } from '../helpers/rsyslog.js';
import { until } from '../helpers/until.js';
import { loadAverage, nowMs } from './lib/stats.js';
import type { BenchContext, Figure } from './lib/types.js';

/**
 * Issue 40, point 7 (the copy off the host): how fast the server's audit forwarding catches up
 * with a trail that a receiver has not seen, from a start of the server to the receiver having
 * taken the last entry (the forwarder's saved position, which moves only once the receiver closed
 * a round: audit-forward/forwarder.ts). Against a real rsyslog over TLS (imtcp + gtls, writing each
 * message to a file, test/helpers/rsyslog.ts), beside the same forwarder sending the same messages
 * over plain TCP to a local socket that reads and discards them, in the same run, alternately.
 */
export const name = 'server-audit-forward';

const START_MS = Date.UTC(2026, 10, 1);
const rowAt = (i: number): AuditRow => {
  const at_ms = START_MS + i * 50;
  return {
    id: `aud_bench${String(i).padStart(12, '0')}`,
    at: iso(at_ms),
    at_ms,
    actor_subject: i % 3 ? 'svc-terraform' : 'alice',
    actor_role: 'it_admin',
    action: i % 2 ? 'gateway.key.create' : 'channel.update',
    target_type: 'gateway_key',
    target_id: `key_${i}`,
    target_name: `ci-bot-${i % 100}`,
    outcome: 'success',
    status: 201,
    request_id: `req_bench${i}`,
    source_ip: '10.0.0.5',
    details: JSON.stringify({ name: `ci-bot-${i % 100}`, requests_per_minute: 60 }),
  };
};

/** A local socket that reads everything and closes when the sender ends (what a receiver does). */
async function discardServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.resume());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

export async function run(ctx: BenchContext): Promise<Figure[]> {
  const entries = ctx.quick ? 20_000 : 300_000;
  const root = tempDir('aa-bench-forward');
  const dataDir = join(root, 'data');
  const base = fixtureConfig(root);
  try {
    // the trail: written once, linked as the server links it
    const seed = await buildServer({ dataDir, config: base });
    for (let done = 0; done < entries; done += 10_000) {
      const rows = Array.from({ length: Math.min(10_000, entries - done) }, (_, k) => rowAt(done + k));
      seed.db.transaction(() => insertLinked(seed.db, rows))();
    }
    const head = seed.db.prepare('SELECT max(seq) FROM audit').pluck().get() as number;
    await seed.close();
    ctx.log(`seeded ${entries.toLocaleString('en-US')} entries; load average ${loadAverage()}`);

    const rs = await startRsyslog(join(root, 'rsyslog'));
    const sink = await discardServer();
    const catchUp = async (forward: ServerConfig['audit_forward']): Promise<number> => {
      const db = openDatabase(dataDir);
      db.prepare('DELETE FROM audit_forward').run();
      db.close();
      const t0 = nowMs();
      const server = await buildServer({ dataDir, config: { ...base, audit_forward: forward } });
      try {
        await until(
          'the receiver to take every entry',
          () => forwarderOf(server.db)?.state().forwarded === head,
          600_000,
        );
        return (head / (nowMs() - t0)) * 1000;
      } finally {
        await server.close();
      }
    };
    const tls = AuditForward.parse({ url: `syslog-tls://127.0.0.1:${rs.port}`, ca_file: rs.caFile });
    const plain = AuditForward.parse({ url: `syslog-tcp://127.0.0.1:${sink.port}` });
    const toRsyslog: number[] = [];
    const toSocket: number[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        toSocket.push(await catchUp(plain));
        toRsyslog.push(await catchUp(tls));
        ctx.log(`run ${i + 1}: rsyslog ${Math.round(toRsyslog[i])}/s, socket ${Math.round(toSocket[i])}/s`);
      }
      const lines = rs.lines().length;
      const best = (xs: number[]) => Math.max(...xs);
      return [
        {
          label: `audit forwarding catch-up to rsyslog over TLS, ${entries.toLocaleString('en-US')} entries (best of 2)`,
          value: best(toRsyslog),
          unit: 'entries/s',
          baseline: {
            label: 'the same forwarder over plain TCP to a local socket that discards',
            value: best(toSocket),
          },
          target: { min: 20_000 },
          note:
            `rsyslog ${toRsyslog.map(Math.round).join(', ')}/s, socket ${toSocket.map(Math.round).join(', ')}/s; ` +
            `rsyslog wrote ${lines.toLocaleString('en-US')} lines; load average ${loadAverage()}`,
        },
      ];
    } finally {
      sink.server.close();
      await rs.stop('SIGTERM');
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
