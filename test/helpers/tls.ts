import { generate } from 'selfsigned';

/** A private CA and a server certificate it signed for 127.0.0.1 and localhost, as an appliance would have. */
export async function makeCertificates(
  caName = 'appliance-admin test CA',
): Promise<{ ca: string; cert: string; key: string }> {
  const ca = await generate([{ name: 'commonName', value: caName }], {
    keyType: 'ec',
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'appliance.test' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 7, ip: '127.0.0.1' },
          { type: 2, value: 'localhost' },
        ],
      },
    ],
  });
  return { ca: ca.cert, cert: leaf.cert, key: leaf.private };
}
