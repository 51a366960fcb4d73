import { hostname } from 'node:os';

/**
 * One audit entry as an RFC 5424 syslog message, framed for a stream by octet counting (RFC 6587
 * §3.4.1, which RFC 5425 requires over TLS): `LEN SP <PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID
 * [aa-audit@32473 seq="N" hash="H"] MSG`. MSG is the entry's line exactly as the JSON Lines export
 * writes it (canonical.ts canonicalLine), with no byte order mark, so that a receiver that keeps it
 * keeps the one text that verifies (docs/audit-chain.md, "Only the canonical line verifies").
 */

/** The structured data element's id: ours, under the documentation private enterprise number (RFC 5612). */
const SD_ID = 'aa-audit@32473';
const APP_NAME = 'appliance-admin';
const MSG_ID = 'audit';
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

/** The fixed part of every message (`<PRI>1 `), and what follows the timestamp up to the structured data. */
export function headerParts(h: MessageHeader): { start: string; afterTime: string } {
  return {
    start: `<${h.facility * 8 + SEVERITY_NOTICE}>1 `,
    afterTime: ` ${h.hostname} ${APP_NAME} ${h.procid} ${MSG_ID} [${SD_ID} seq="`,
  };
}

/**
 * The framed message of one entry. `at` is the entry's own time (RFC 3339 UTC, as served); `line`
 * its canonical export line. seq and hash need no escape in a parameter value (digits, hex).
 */
export function framedMessage(
  parts: { start: string; afterTime: string },
  at: string,
  seq: number,
  hash: string,
  line: string,
): string {
  const msg = `${parts.start}${at}${parts.afterTime}${seq}" hash="${hash}"] ${line}`;
  return `${Buffer.byteLength(msg, 'utf8')} ${msg}`;
}
