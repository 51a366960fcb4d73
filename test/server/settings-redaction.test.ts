import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { fixtureConfig } from '../helpers/fixtures.js';

/** Secrets put in URLs of the configuration, none of which may reach a caller of /settings. */
const SECRETS = [
  'pa55word',
  'svc-user',
  'k3y-value',
  'c0de-value',
  'S1GNATURE',
  'eu-west',
  'fr4gment-token',
  'b4re-secret',
  'txt-pass',
];

describe('GET /settings', () => {
  it('shows every URL without user info and with every query value hidden, to every role', async () => {
    const t = await startTestServer({
      config: (root) => {
        const cfg = fixtureConfig(root);
        cfg.connectors[2].sources = [
          {
            id: 'src_signed',
            name: 'Signed',
            type: 'remote',
            url: 'https://svc-user:pa55word@crm.example.invalid/api?key=k3y-value&sig=S1GNATURE&code=c0de-value&region=eu-west',
          },
          // a port out of range: `new URL` refuses it, the redaction must not
          {
            id: 'src_bad_port',
            name: 'Bad port',
            type: 'remote',
            url: 'https://svc-user:pa55word@crm.example.invalid:99999/x?sig=S1GNATURE',
          },
          {
            id: 'src_fragment',
            name: 'Fragment',
            type: 'remote',
            url: 'https://crm.example.invalid/cb#access_token=fr4gment-token&state=1',
          },
          { id: 'src_bare', name: 'Bare', type: 'remote', url: 'https://crm.example.invalid/feed?b4re-secret' },
          {
            id: 'src_text',
            name: 'mirror of ftp://u:txt-pass@files.example.invalid/dump?sig=S1GNATURE (nightly)',
            type: 'remote',
            url: 'https://crm.example.invalid',
          },
        ];
        return cfg;
      },
    });
    try {
      for (const role of ['auditor', 'app_owner', 'it_admin'] as const) {
        const res = await t.call('GET', '/settings', { role });
        expect(res.status).toBe(200);
        for (const secret of SECRETS) expect(res.text, `${role}: ${secret}`).not.toContain(secret);
        const connectors = res.json.sections.find((x: { name: string }) => x.name === 'connectors').values;
        const sources = Object.fromEntries(connectors.conn_crm.sources.map((src: { id: string }) => [src.id, src]));
        expect(sources.src_signed.url).toBe(
          'https://crm.example.invalid/api?key=REDACTED&sig=REDACTED&code=REDACTED&region=REDACTED',
        );
        expect(sources.src_bad_port.url).toBe('https://crm.example.invalid:99999/x?sig=REDACTED');
        expect(sources.src_fragment.url).toBe('https://crm.example.invalid/cb#access_token=REDACTED&state=REDACTED');
        expect(sources.src_bare.url).toBe('https://crm.example.invalid/feed?REDACTED');
        expect(sources.src_text.name).toBe('mirror of ftp://files.example.invalid/dump?sig=REDACTED (nightly)');
        expect(sources.src_text.url).toBe('https://crm.example.invalid');
      }
    } finally {
      await t.close();
    }
  });
});
