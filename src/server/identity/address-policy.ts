import { isIP } from 'node:net';

/**
 * Which resolved addresses the identity test may connect to (OWASP SSRF prevention).
 * `always` ranges are never a legitimate identity provider; `private` ranges are refused
 * unless the server is configured for a lab (identity_test.allow_private_addresses).
 */
interface Range {
  bits: bigint;
  prefix: number;
  reason: string;
  always: boolean;
}

const V4_BITS = 32;
const V6_BITS = 128;

function v4ToBigInt(addr: string): bigint {
  return addr.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6ToBigInt(addr: string): bigint {
  let text = addr.split('%')[0].toLowerCase();
  // a trailing dotted quad (::ffff:1.2.3.4) becomes two hex groups
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const v = v4ToBigInt(quad[1]);
    text = text.slice(0, -quad[1].length) + `${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

const range = (cidr: string, reason: string, always = false): Range => {
  const [addr, len] = cidr.split('/');
  const v6 = addr.includes(':');
  return {
    bits: v6 ? v6ToBigInt(addr) : v4ToBigInt(addr),
    prefix: Number(len ?? (v6 ? V6_BITS : V4_BITS)),
    reason,
    always,
  };
};

// Order matters: the most specific reason first (metadata before link-local).
const V4: Range[] = [
  range('169.254.169.254/32', 'a cloud metadata address', true),
  range('100.100.100.200/32', 'a cloud metadata address', true),
  range('0.0.0.0/8', 'an unspecified ("this network") address', true),
  range('224.0.0.0/4', 'a multicast address', true),
  range('240.0.0.0/4', 'a reserved or broadcast address', true),
  range('127.0.0.0/8', 'a loopback address'),
  range('169.254.0.0/16', 'a link-local address'),
  range('10.0.0.0/8', 'a private address'),
  range('172.16.0.0/12', 'a private address'),
  range('192.168.0.0/16', 'a private address'),
  range('100.64.0.0/10', 'a shared (carrier-grade NAT) address'),
  range('192.0.0.0/24', 'an IETF protocol assignment address'),
  range('198.18.0.0/15', 'a benchmarking address'),
];

const V6: Range[] = [
  range('fd00:ec2::254/128', 'a cloud metadata address', true),
  range('::/128', 'an unspecified address', true),
  range('ff00::/8', 'a multicast address', true),
  range('::1/128', 'a loopback address'),
  range('fe80::/10', 'a link-local address'),
  range('fec0::/10', 'a site-local address'),
  range('fc00::/7', 'a unique-local (private) address'),
  range('64:ff9b:1::/48', 'a local-use NAT64 address'),
];

const inRange = (value: bigint, width: number, r: Range) =>
  value >> BigInt(width - r.prefix) === r.bits >> BigInt(width - r.prefix);

/** IPv6 forms that carry an IPv4 address the packet really goes to. */
function embeddedV4(v: bigint): bigint | null {
  const top96 = v >> 32n;
  const low32 = v & 0xffffffffn;
  if (top96 === 0xffffn) return low32; // ::ffff:a.b.c.d (IPv4-mapped)
  if (top96 === 0n) return low32; // ::a.b.c.d (IPv4-compatible, deprecated)
  if (top96 === 0xffff0000n) return low32; // ::ffff:0:a.b.c.d (SIIT, IPv4-translated)
  if (v >> 32n === 0x0064ff9b0000000000000000n) return low32; // 64:ff9b::/96 (NAT64)
  if (v >> 112n === 0x2002n) return (v >> 80n) & 0xffffffffn; // 2002::/16 (6to4)
  if (v >> 96n === 0x20010000n) return low32 ^ 0xffffffffn; // 2001::/32 (Teredo client)
  return null;
}

export interface AddressVerdict {
  allowed: boolean;
  /** why it is refused, e.g. "a loopback address" */
  reason?: string;
}

/** Decides whether the identity test may connect to `address` (an IP literal). */
export function checkAddress(address: string, allowPrivate: boolean): AddressVerdict {
  const family = isIP(address.split('%')[0]);
  if (family === 0) return { allowed: false, reason: 'not an IP address' };
  let hit: Range | undefined;
  if (family === 4) {
    const v = v4ToBigInt(address);
    hit = V4.find((r) => inRange(v, V4_BITS, r));
  } else {
    const v = v6ToBigInt(address);
    // :: and ::1 also look IPv4-compatible; their own entries decide
    hit = V6.find((r) => inRange(v, V6_BITS, r));
    const v4 = hit ? null : embeddedV4(v);
    if (v4 !== null) {
      const inner = V4.find((r) => inRange(v4, V4_BITS, r));
      if (inner) hit = { ...inner, reason: `${inner.reason} (embedded in an IPv6 address)` };
    }
  }
  if (!hit) return { allowed: true };
  if (!hit.always && allowPrivate) return { allowed: true };
  return { allowed: false, reason: hit.reason };
}
