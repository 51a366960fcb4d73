import { generate } from 'selfsigned';

const DAY = 86_400_000;

/** A self-signed X.509 certificate (PEM) valid from `fromDays` to `toDays` relative to now. */
export async function testCertificate(fromDays: number, toDays: number, commonName = 'idp.test'): Promise<string> {
  const now = Date.now();
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now + fromDays * DAY),
    notAfterDate: new Date(now + toDays * DAY),
  });
  return pems.cert;
}

const base64Body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').trim();

/** SAML 2.0 IdP metadata as an identity provider publishes it (prefixed namespaces, signing key). */
export function samlMetadata(o: {
  entityId: string;
  ssoUrl: string;
  certPem: string;
  validUntil?: Date | null;
}): string {
  const validUntil = o.validUntil === undefined ? new Date(Date.now() + 30 * DAY) : o.validUntil;
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#"
    entityID="${o.entityId}"${validUntil ? ` validUntil="${validUntil.toISOString()}"` : ''}>
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo>
        <ds:X509Data>
          <ds:X509Certificate>${base64Body(o.certPem)}</ds:X509Certificate>
        </ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${o.ssoUrl}"/>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${o.ssoUrl}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>
`;
}

/** The classic entity-expansion bomb ("billion laughs"). */
export const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&lol9;"/>
`;

/** An external entity that would read a local file (XXE). */
export const XXE_FILE = `<?xml version="1.0"?>
<!DOCTYPE md:EntityDescriptor [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="&xxe;"/>
`;
