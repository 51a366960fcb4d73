import { X509Certificate } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { checkTarget, fetchChecked, type CheckedTarget, type OutboundPolicy } from './outbound.js';
import { failed, passed, StepRunner, warning, type StepOutcome } from './steps.js';

type Node = Record<string, unknown>;
const DAY_MS = 86_400_000;
const EXPIRY_WARNING_DAYS = 30;
const REPEATED = new Set([
  'EntityDescriptor',
  'IDPSSODescriptor',
  'SingleSignOnService',
  'KeyDescriptor',
  'X509Data',
  'X509Certificate',
]);

/**
 * Entities are never expanded: the parser runs with processEntities off, and any document
 * with a DTD is refused before parsing (billion laughs, XXE).
 */
const parser = new XMLParser({
  processEntities: false,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  isArray: (name, _path, _leaf, isAttribute) => !isAttribute && REPEATED.has(name),
});

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** Decodes only XML's predefined and numeric character references; nothing else is an entity here. */
const decode = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_, ref: string) =>
    ref[0] !== '#'
      ? PREDEFINED[ref.toLowerCase()]
      : String.fromCodePoint(ref[1].toLowerCase() === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)),
  );

const attr = (node: Node | undefined, name: string): string | undefined => {
  const v = node?.[`@${name}`];
  return typeof v === 'string' ? decode(v) : undefined;
};
const children = (node: Node | undefined, name: string): Node[] => {
  const v = node?.[name];
  return Array.isArray(v) ? (v as unknown[]).filter((x): x is Node => !!x && typeof x === 'object') : [];
};
const textOf = (v: unknown): string =>
  typeof v === 'string' ? v : v && typeof v === 'object' ? String((v as Node)['#text'] ?? '') : '';
const isXml = (contentType: string) => /^(application|text)\/([\w.-]+\+)?xml\b/i.test(contentType);
const day = (d: Date) => d.toISOString().slice(0, 10);

function decodeText(body: Buffer): string {
  if (body[0] === 0xff && body[1] === 0xfe) return new TextDecoder('utf-16le').decode(body.subarray(2));
  if (body[0] === 0xfe && body[1] === 0xff) return new TextDecoder('utf-16be').decode(body.subarray(2));
  return new TextDecoder('utf-8').decode(body);
}

/** Parses metadata XML; refuses any DTD or entity declaration outright. */
function parseMetadata(body: Buffer): { doc: Node } | { error: string } {
  const text = decodeText(body);
  if (text.includes('\u0000')) return { error: 'the metadata is not UTF-8 or UTF-16 text' };
  if (/<!DOCTYPE/i.test(text))
    return {
      error:
        'refused: the metadata contains a <!DOCTYPE> declaration; DTDs and entities are never processed (XXE, entity expansion)',
    };
  if (/<!ENTITY/i.test(text))
    return {
      error: 'refused: the metadata declares an <!ENTITY>; entities are never processed (XXE, entity expansion)',
    };
  try {
    return { doc: parser.parse(text, true) as Node };
  } catch (err) {
    return { error: `the metadata is not well-formed XML: ${(err as Error).message.slice(0, 200)}` };
  }
}

function checkValidity(entity: Node, now: number): StepOutcome {
  const raw = attr(entity, 'validUntil');
  if (raw === undefined)
    return warning('the metadata has no validUntil; it never expires, so a stale copy would go unnoticed');
  const until = Date.parse(raw);
  if (Number.isNaN(until)) return failed(`validUntil ${JSON.stringify(raw)} is not a date`);
  if (until <= now) return failed(`the metadata expired at ${new Date(until).toISOString()} (validUntil)`);
  return passed(`valid until ${new Date(until).toISOString()}`);
}

function checkIdpSso(idps: Node[]): StepOutcome {
  if (idps.length === 0) return failed('no IDPSSODescriptor: this metadata does not describe an identity provider');
  const services = idps.flatMap((d) => children(d, 'SingleSignOnService'));
  const located = services.filter((s) => attr(s, 'Location'));
  if (located.length === 0) return failed('the IDPSSODescriptor has no SingleSignOnService with a Location');
  const bindings = [
    ...new Set(
      located.map((s) => (attr(s, 'Binding') ?? 'no binding').replace(/^urn:oasis:names:tc:SAML:2\.0:bindings:/, '')),
    ),
  ];
  const summary = `${located.length} SingleSignOnService endpoint${located.length > 1 ? 's' : ''} (${bindings.join(', ')})`;
  const plain = located.filter((s) => !attr(s, 'Location')!.startsWith('https://'));
  if (plain.length) return warning(`${summary}; ${plain.length} not on https`);
  if (
    !idps.some((d) => (attr(d, 'protocolSupportEnumeration') ?? '').includes('urn:oasis:names:tc:SAML:2.0:protocol'))
  ) {
    return warning(`${summary}; protocolSupportEnumeration does not name SAML 2.0`);
  }
  return passed(summary);
}

function checkSigningCertificates(idps: Node[], now: number): StepOutcome {
  const signing = idps
    .flatMap((d) => children(d, 'KeyDescriptor'))
    .filter((k) => {
      const use = attr(k, 'use');
      return use === undefined || use === 'signing';
    });
  const encoded = signing.flatMap((k) => {
    const keyInfo = k.KeyInfo as Node | undefined;
    return children(keyInfo, 'X509Data')
      .flatMap((x) => (Array.isArray(x.X509Certificate) ? x.X509Certificate : []))
      .map(textOf);
  });
  if (encoded.length === 0)
    return failed('no signing certificate: no KeyDescriptor (use="signing" or without use) holds an X509Certificate');
  const good: string[] = [];
  const soon: string[] = [];
  const bad: string[] = [];
  for (const b64 of encoded) {
    let cert: X509Certificate;
    try {
      cert = new X509Certificate(Buffer.from(b64.replace(/\s+/g, ''), 'base64'));
    } catch (err) {
      bad.push(`a certificate does not parse (${(err as Error).message})`);
      continue;
    }
    const from = new Date(cert.validFrom);
    const to = new Date(cert.validTo);
    const name = `${cert.subject.replace(/\n/g, ', ') || 'certificate'} (valid to ${day(to)})`;
    if (to.getTime() <= now) bad.push(`${name} expired`);
    else if (from.getTime() > now) bad.push(`${name} is not valid before ${day(from)}`);
    else if (to.getTime() - now < EXPIRY_WARNING_DAYS * DAY_MS)
      soon.push(`${name} expires in ${Math.ceil((to.getTime() - now) / DAY_MS)} days`);
    else good.push(name);
  }
  const notes = [...soon, ...bad].join('; ');
  if (good.length)
    return notes
      ? warning(`signing certificate ${good.join(', ')}; also: ${notes}`)
      : passed(`signing certificate ${good.join(', ')}`);
  if (soon.length) return warning(`signing certificate ${notes}`);
  return failed(`no usable signing certificate: ${notes}`);
}

/**
 * SAML pre-check: resolve, fetch, parse and entity-descriptor gate the rest; validity, idp-sso
 * and signing-certificate are independent, so all three run and report together.
 */
export async function checkSaml(metadataUrl: string, policy: OutboundPolicy): Promise<StepRunner> {
  const steps = new StepRunner();
  const url = new URL(metadataUrl);
  const budget = AbortSignal.timeout(policy.timeout_ms);
  const now = Date.now();
  let target: CheckedTarget | undefined;
  let body: Buffer = Buffer.alloc(0);
  let contentType = '';
  let doc: Node = {};
  let entity: Node = {};
  let idps: Node[] = [];

  await steps.run('resolve', async () => {
    const r = await checkTarget(url, policy, budget);
    if (!r.ok) return failed(r.detail);
    target = r.value;
    return passed(r.detail);
  });
  await steps.run('fetch', async () => {
    const r = await fetchChecked(target!, policy, budget, 'application/samlmetadata+xml, application/xml, text/xml');
    if (!r.ok) return failed(r.detail);
    ({ body, contentType } = r.value);
    if (!isXml(contentType) && !/samlmetadata/i.test(contentType))
      return warning(`${r.detail}, served as ${contentType || 'no content-type'} instead of an XML type`);
    return passed(`${r.detail}, ${contentType}`);
  });
  await steps.run('parse', () => {
    const r = parseMetadata(body);
    if ('error' in r) return failed(r.error);
    doc = r.doc;
    return passed('well-formed XML, no DTD or entities');
  });
  await steps.run('entity-descriptor', () => {
    const roots = Object.keys(doc).filter((k) => !k.startsWith('#') && !k.startsWith('?'));
    if (roots.includes('EntitiesDescriptor'))
      return failed(
        'the root is an EntitiesDescriptor (a federation aggregate); give the metadata URL of one identity provider',
      );
    if (roots.length !== 1 || roots[0] !== 'EntityDescriptor' || children(doc, 'EntityDescriptor').length !== 1) {
      return failed(`the root element is ${roots.join(', ') || 'missing'}, not one EntityDescriptor`);
    }
    entity = children(doc, 'EntityDescriptor')[0];
    const id = attr(entity, 'entityID');
    if (!id) return failed('the EntityDescriptor has no entityID');
    idps = children(entity, 'IDPSSODescriptor');
    return passed(`entityID ${JSON.stringify(id)}`);
  });
  await steps.run('validity', () => checkValidity(entity, now), { gate: false });
  await steps.run('idp-sso', () => checkIdpSso(idps), { gate: false });
  await steps.run('signing-certificate', () => checkSigningCertificates(idps, now), { gate: false });
  return steps;
}
