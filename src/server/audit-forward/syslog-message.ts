import { hostname } from 'node:os';
import { APP_NAME, CHECKPOINT_MSG_ID, ENTRY_MSG_ID as MSG_ID } from '../../audit-chain/syslog-copy.js';

/**
 * One audit entry as an RFC 5424 syslog message, framed for a stream by octet counting (RFC 6587
 * §3.4.1, which RFC 5425 requires over TLS): `LEN SP <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID
 * [aa-audit@32473 seq="N" hash="H"] MSG`. MSG is the entry's line exactly as the JSON Lines export
 * writes it (canonical.ts canonicalLine), with no byte order mark, so that a receiver that keeps it
 * keeps the one text that verifies (docs/audit-chain.md, "Only the canonical line verifies"). Each
 * signed checkpoint goes the same way, MSGID `checkpoint` (framedCheckpoint), so that the copy
 * carries what proves it.
 */

/** The structured data elements' ids: ours, under the documentation private enterprise number (RFC 5612). */
const SD_ID = 'aa-audit@32473';
const CHECKPOINT_SD_ID = 'aa-checkpoint@32473';
/** notice: a normal but significant condition (RFC 5424 §6.2.1) */
const SEVERITY_NOTICE = 5;

/** HOSTNAME: printable US-ASCII without spaces, at most 255 characters (RFC 5424 §6.2.4); NILVALUE when none. */
export function syslogHostname(name: string = hostname()): string {
  const clean = name.replace(/[^\x21-\x7e]/g, '').slice(0, 255);
  return clean || '-';
}

export interface MessageHeader {
  /** facility 0–23 (authpriv is 10) */
  facility: number;
  hostname: string;
  procid: string;
}

export interface HeaderParts {
  /** `<PRI>1 ` */
  start: string;
  /** what follows an entry's timestamp up to its seq's value */
  afterTime: string;
  /** what follows a checkpoint's timestamp up to its seq's value */
  checkpointAfterTime: string;
}

/** The fixed part of every message (`<PRI>1 `), and what follows the timestamp up to the structured data. */
export function headerParts(h: MessageHeader): HeaderParts {
  return {
    start: `<${h.facility * 8 + SEVERITY_NOTICE}>1 `,
    afterTime: ` ${h.hostname} ${APP_NAME} ${h.procid} ${MSG_ID} [${SD_ID} seq="`,
    checkpointAfterTime: ` ${h.hostname} ${APP_NAME} ${h.procid} ${CHECKPOINT_MSG_ID} [${CHECKPOINT_SD_ID} seq="`,
  };
}

/**
 * The framed message of one entry. `at` is the entry's own time (RFC 3339 UTC, as served); `line`
 * its canonical export line. seq and hash need no escape in a parameter value (digits, hex).
 */
export function framedMessage(parts: HeaderParts, at: string, seq: number, hash: string, line: string): string {
  const msg = `${parts.start}${at}${parts.afterTime}${seq}" hash="${hash}"] ${line}`;
  return `${Buffer.byteLength(msg, 'utf8')} ${msg}`;
}

/**
 * The framed message of one signed checkpoint: MSG is the checkpoint exactly as GET /audit/checkpoints
 * serves it (its JSON, its note with the cosignatures held when it is sent), `seq` and, when it signs a
 * tree, `tree_size` in the structured data (unsigned, for a reader's convenience, as an entry's are).
 */
export function framedCheckpoint(
  parts: HeaderParts,
  c: { seq: number; at: string; tree_size: number | null },
  json: string,
): string {
  const size = c.tree_size === null ? '' : ` tree_size="${c.tree_size}"`;
  const msg = `${parts.start}${c.at}${parts.checkpointAfterTime}${c.seq}"${size}] ${json}`;
  return `${Buffer.byteLength(msg, 'utf8')} ${msg}`;
}
