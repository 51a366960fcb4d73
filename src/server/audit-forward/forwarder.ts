import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Logger } from 'pino';
import type { Db } from '../db/sqlite-driver.js';
import { canonicalLine } from '../../audit-chain/canonical.js';
import { CHECKPOINT_COLUMNS, servedCheckpoint, type CheckpointRow } from '../audit-chain/checkpoint-note.js';
import { auditSpec, toAuditEntry } from '../governance/audit-trail.js';
import type { Row } from '../governance/keyset.js';
import { describeError } from '../background.js';
import { iso } from '../ids.js';
import { forwardedSeq, saveForwarded } from './position.js';
import { framedCheckpoint, framedMessage, headerParts, syslogHostname } from './syslog-message.js';
import type { ForwardTarget } from './target.js';

/**
 * The copy off the host: every audit entry, in seq order, to a syslog receiver, at least once.
 *
 * TCP and TLS carry no acknowledgement of the receiver's own, so the sender makes one of the
 * connection's end: entries go in rounds, one connection each. A round writes the entries after
 * the saved position, then ends its side of the connection (TLS close_notify and FIN) and waits
 * for the receiver to close in turn. A receiver closes only once it has read everything before
 * the end, so only then is the round's last seq saved as taken (position.ts). A round that breaks
 * (an error, a reset, no close within CLOSE_TIMEOUT_MS) saves nothing, and the next round, after a
 * wait that doubles per failure (the server's retry policy), sends its entries again: a receiver
 * may hold an entry twice (the same seq and hash), never miss one. docs/operations.md says what
 * "read" means for a receiver that buffers before it writes.
 *
 * Each signed checkpoint goes too, right after the entry it signs (or, signed later, as soon as it is
 * signed), so that the copy carries what proves it (docs/audit-chain.md, "A syslog copy"). Which
 * checkpoints the receiver took is kept in memory only (checkpoints are few, and the table of
 * positions holds entries): after a restart the newest checkpoint at or before the saved position
 * is sent again, and it covers any older one a broken round had not delivered.
 */

/** Entries read from the database and written at a time. */
const BATCH_ENTRIES = 1000;
/** A round ends after this many entries, or once caught up and this old: what a broken round sends again. */
const ROUND_ENTRIES = 50_000;
const ROUND_MS = 1000;
/** While caught up, how often the trail's head is looked at (the host CLI writes from another process). */
const IDLE_POLL_MS = 250;
const CONNECT_TIMEOUT_MS = 10_000;
const CLOSE_TIMEOUT_MS = 10_000;
/** A write the receiver does not read for this long breaks the round. */
const STALL_TIMEOUT_MS = 30_000;

/** What the deployment status shows of the copy (deployment-status.ts). */
interface ForwardState {
  target: ForwardTarget;
  /** the last entry the receiver took */
  forwarded: number;
  /** the row id of the last checkpoint the receiver took (checkpoints are sent in id order, which is seq order) */
  checkpointId: number;
  lastTakenAt: string | null;
  /** the last failure, while rounds fail; null once one succeeds */
  failure: { error: string; since: string; failures: number; retryMs: number } | null;
}

export interface Forwarder {
  state(): ForwardState;
  stop(): Promise<void>;
}

const registry = new WeakMap<Db, Forwarder>();

/** The forwarder running on `db`, if the config has one. */
export const forwarderOf = (db: Db): Forwarder | undefined => registry.get(db);

export function startForwarder(
  db: Db,
  target: ForwardTarget,
  log: Logger,
  backoff: (inRow: number) => number,
): Forwarder {
  const select = db.prepare(`SELECT ${auditSpec.select} FROM audit WHERE seq > ? ORDER BY seq LIMIT ?`).raw(true);
  const headSeq = db.prepare('SELECT max(seq) FROM audit').pluck();
  const selectCheckpoints = db.prepare(
    `SELECT ${CHECKPOINT_COLUMNS} FROM audit_checkpoints WHERE id > ? AND seq <= ? ORDER BY id LIMIT ?`,
  );
  const newestCheckpointId = db.prepare('SELECT max(id) FROM audit_checkpoints').pluck();
  const parts = headerParts({ facility: target.facility, hostname: syslogHostname(), procid: String(process.pid) });
  const forwarded = forwardedSeq(db, target.url);
  // the newest checkpoint at or before the position is sent again: whether it was taken before a restart is not kept
  const takenCheckpoint = db.prepare('SELECT max(id) FROM audit_checkpoints WHERE seq <= ?').pluck().get(forwarded) as
    number | null;
  const state: ForwardState = {
    target,
    forwarded,
    checkpointId: takenCheckpoint === null ? 0 : takenCheckpoint - 1,
    lastTakenAt: null,
    failure: null,
  };
  let stopped = false;
  let socket: Socket | undefined;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });
  const head = () => (headSeq.get() as number | null) ?? 0;
  /** Whether anything is left to send: an entry after the position, or a checkpoint the receiver has not taken. */
  const pending = () =>
    head() > state.forwarded || ((newestCheckpointId.get() as number | null) ?? 0) > state.checkpointId;

  /**
   * The framed messages of the entries after `after` and of the checkpoints after row id `afterCheckpoint`
   * that sign one of them or an entry sent before, each checkpoint right after the entry it signs; the
   * last seq and checkpoint id among them (the ones given when none).
   */
  const batch = (after: number, afterCheckpoint: number): { text: string; last: number; lastCheckpoint: number } => {
    const rows = select.all(after, BATCH_ENTRIES) as Row[];
    const last = rows.length ? toAuditEntry(rows[rows.length - 1]).seq : after;
    const checkpoints = selectCheckpoints.all(afterCheckpoint, last, BATCH_ENTRIES) as CheckpointRow[];
    let text = '';
    let next = 0;
    let lastCheckpoint = afterCheckpoint;
    const checkpointsUpTo = (seq: number) => {
      for (; next < checkpoints.length && checkpoints[next].seq <= seq; next++) {
        const c = checkpoints[next];
        text += framedCheckpoint(parts, c, JSON.stringify(servedCheckpoint(db, c)));
        lastCheckpoint = c.id;
      }
    };
    checkpointsUpTo(after);
    for (const row of rows) {
      const entry = toAuditEntry(row);
      text += framedMessage(parts, entry.at, entry.seq, entry.hash, canonicalLine(entry));
      checkpointsUpTo(entry.seq);
    }
    checkpointsUpTo(last);
    return { text, last, lastCheckpoint };
  };

  /** One round: connect, send from the saved position, end, and save what the receiver took. */
  const round = async (): Promise<void> => {
    const from = state.forwarded;
    const link = await open(target, (s) => (socket = s));
    try {
      const began = Date.now();
      let sent = from;
      let sentCheckpoint = state.checkpointId;
      for (;;) {
        if (stopped) throw new Error('the server is closing');
        const { text, last, lastCheckpoint } = batch(sent, sentCheckpoint);
        if (text) {
          await link.write(text);
          sent = last;
          sentCheckpoint = lastCheckpoint;
          if (sent - from >= ROUND_ENTRIES) break;
          continue;
        }
        if (Date.now() - began >= ROUND_MS) break;
        await Promise.race([sleep(Math.min(IDLE_POLL_MS, ROUND_MS)), link.broken]);
      }
      await link.end();
      if (sent > from) {
        saveForwarded(db, target.url, sent);
        state.forwarded = sent;
      }
      if (sent > from || sentCheckpoint > state.checkpointId) {
        state.checkpointId = sentCheckpoint;
        state.lastTakenAt = iso();
      }
    } finally {
      link.socket.destroy();
      socket = undefined;
    }
  };

  const loop = async () => {
    let inRow = 0;
    while (!stopped) {
      try {
        if (!pending()) {
          await sleep(IDLE_POLL_MS);
          continue;
        }
        await round();
        if (state.failure)
          log.info({ task: 'audit-forward', failures: state.failure.failures }, 'audit forwarding recovered');
        state.failure = null;
        inRow = 0;
      } catch (err) {
        // a round that broke, or the database that could not be read: logged, kept for /deployment, tried again
        if (stopped) break;
        const wait = backoff(++inRow);
        const error = describeError(err);
        state.failure = { error, since: state.failure?.since ?? iso(), failures: inRow, retryMs: wait };
        log.warn(
          { task: 'audit-forward', error, failures: inRow, forwarded: state.forwarded, retry_ms: wait },
          'audit forwarding failed; its entries are sent again',
        );
        await sleep(wait);
      }
    }
  };

  const running = loop();
  const forwarder: Forwarder = {
    state: () => state,
    stop: async () => {
      stopped = true;
      wake?.();
      socket?.destroy();
      await running;
      registry.delete(db);
    },
  };
  registry.set(db, forwarder);
  return forwarder;
}

interface Link {
  socket: Socket;
  /** resolves once written to the socket (and its buffer drained, when it was full); rejects when the connection broke */
  write(text: string): Promise<void>;
  /** ends our side and resolves when the receiver closed in turn */
  end(): Promise<void>;
  /** rejects when the connection breaks */
  broken: Promise<never>;
}

/** A connection to the receiver, TLS verified against its CA and name, or plain TCP (loopback only: config.ts). */
async function open(t: ForwardTarget, onSocket: (s: Socket) => void): Promise<Link> {
  const socket: Socket = t.tls
    ? tlsConnect({
        host: t.host,
        port: t.port,
        servername: t.servername,
        ca: t.ca,
        cert: t.cert,
        key: t.key,
        minVersion: 'TLSv1.2',
      })
    : tcpConnect({ host: t.host, port: t.port });
  // handed over before it connects: a server closing meanwhile destroys it rather than wait for the connection
  onSocket(socket);
  let fail!: (err: Error) => void;
  const broken = new Promise<never>((_, reject) => (fail = reject));
  broken.catch(() => undefined);
  let peerEnded = false;
  socket.on('error', (err) => fail(err));
  socket.on('end', () => {
    peerEnded = true;
  });
  socket.on('close', () => fail(new Error(peerEnded ? 'the receiver closed the connection' : 'the connection closed')));
  socket.setKeepAlive(true, 30_000);
  // a receiver says nothing back; whatever it sends anyway is read and dropped, so that its end is seen
  socket.resume();
  await withTimeout(
    new Promise<void>((resolve) => socket.once(t.tls ? 'secureConnect' : 'connect', () => resolve())),
    broken,
    CONNECT_TIMEOUT_MS,
    `no connection to ${t.host}:${t.port} within ${CONNECT_TIMEOUT_MS / 1000} s`,
  ).catch((err) => {
    socket.destroy();
    throw err;
  });
  return {
    socket,
    broken,
    write: async (text) => {
      if (peerEnded) throw new Error('the receiver closed the connection');
      if (socket.write(text)) return;
      await withTimeout(
        new Promise<void>((resolve) => socket.once('drain', resolve)),
        broken,
        STALL_TIMEOUT_MS,
        `the receiver read nothing for ${STALL_TIMEOUT_MS / 1000} s`,
      );
    },
    end: async () => {
      // a receiver that ended first (its own shutdown) may not have read what crossed its end
      if (peerEnded) throw new Error('the receiver closed the connection before the round ended');
      const closed = new Promise<void>((resolve) =>
        socket.once('close', (hadError) => (hadError ? undefined : peerEnded ? resolve() : undefined)),
      );
      socket.end();
      await withTimeout(
        closed,
        broken.catch((err: Error) => {
          // a close after the receiver ended its side is the graceful end this waits for
          if (!peerEnded || socket.errored) throw err;
          return new Promise<never>(() => undefined);
        }),
        CLOSE_TIMEOUT_MS,
        `the receiver did not close the connection within ${CLOSE_TIMEOUT_MS / 1000} s of its end`,
      );
    },
  };
}

async function withTimeout<T>(p: Promise<T>, broken: Promise<never>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([p, broken, late]);
  } finally {
    clearTimeout(timer);
  }
}
