import React from 'react';
import type { IdentityTestRequest, IdentityTestResult, Settings } from '../src/contract/index.js';
import { defineScreen } from '../src/dashboard/kit/screen-api.js';
import { widthOf } from '../src/dashboard/kit/text.js';
import {
  badge,
  blank,
  cell,
  heading,
  LineView,
  pairs,
  plain,
  seg,
  wrapped,
  type Line,
} from '../src/dashboard/kit/line-view.js';
import { tableTime } from '../src/dashboard/kit/table-time.js';

const NOT_SSO =
  'A passing check means the identity provider is reachable and its metadata is valid. It does not mean single sign-on is set up: federation is configured in the identity provider, not here.';

type Provider = 'oidc' | 'saml';
interface LastInput {
  provider: Provider;
  url: string;
}

/** Why the URL cannot be checked, or null; a URL with user:password@ is refused before it is sent or kept. */
function urlProblem(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return 'an https:// (or http:// in a lab) URL';
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'an https:// (or http:// in a lab) URL';
  if (u.username || u.password) return 'no user:password@ in the URL (the check needs no credentials)';
  return null;
}

function sectionValues(settings: Settings | undefined, name: string): Record<string, unknown> | null {
  const s = settings?.sections?.find((x) => x.name === name);
  return s?.values && typeof s.values === 'object' ? s.values : null;
}

/** What the appliance's settings say about the check and about SSO, when it reports them. */
function contextLines(settings: Settings | undefined, width: number): Line[] {
  const rows: [string, unknown][] = [];
  const t = sectionValues(settings, 'identity_test');
  if (t) {
    const policy = [
      t.allow_http === true ? 'http allowed (lab setting)' : t.allow_http === false ? 'https only' : null,
      t.allow_private_addresses === true
        ? 'private addresses allowed'
        : t.allow_private_addresses === false
          ? 'private and loopback addresses refused'
          : null,
      typeof t.timeout_ms === 'number' ? `timeout ${t.timeout_ms / 1000} s per fetch` : null,
    ].filter(Boolean);
    if (policy.length) rows.push(['outbound policy', policy.join(' · ')]);
  }
  const sso = sectionValues(settings, 'sso');
  if (sso && typeof sso.configured === 'boolean')
    rows.push([
      'sign-in to this API',
      sso.configured
        ? 'single sign-on tokens accepted (configured on the appliance)'
        : 'on-host tokens only (no single sign-on configured)',
    ]);
  return rows.length ? pairs(rows, width, 2) : [];
}

function resultLines(r: IdentityTestResult | null, width: number): Line[] {
  if (!r) return [heading('Last result'), plain('  No check run yet in this session.')];
  const steps = r.steps ?? [];
  const id = Math.min(20, Math.max(4, ...steps.map((s) => widthOf(s.id ?? ''))));
  return [
    [
      seg('Last result  ', { bold: true }),
      r.ok ? seg('● PASSED', { tone: 'ok', bold: true }) : seg('✕ FAILED', { tone: 'bad', bold: true }),
    ],
    ...wrapped([seg('  ')], `${r.provider} ${r.target} · ${tableTime(r.checked_at)} UTC · ${r.duration_ms} ms`, width, {
      dim: true,
    }),
    [
      seg('  '),
      cell('Step', id, { dim: true }),
      seg('  '),
      cell('Status', 9, { dim: true }),
      seg('  '),
      cell('Time', 8, { dim: true }),
      seg('  '),
      seg('Detail', { dim: true }),
    ],
    ...steps.flatMap((s) =>
      wrapped(
        [
          seg('  '),
          cell(s.id, id),
          seg('  '),
          badge(s.status, 9),
          seg('  '),
          cell(`${s.duration_ms ?? '?'} ms`, 8),
          seg('  '),
        ],
        s.detail ?? '',
        width,
      ),
    ),
  ];
}

/** The dialog after a run: the verdict and the steps grouped by status, in words (the details stay on screen). */
function outcomeLines(r: IdentityTestResult): string[] {
  const by = new Map<string, string[]>();
  for (const st of r.steps ?? []) by.set(st.status, [...(by.get(st.status) ?? []), st.id]);
  return [
    `${r.ok ? 'PASSED' : 'FAILED'}: ${r.provider} ${r.target} (${r.duration_ms} ms)`,
    [...by].map(([status, ids]) => `${status}: ${ids.join(', ')}`).join(' · '),
    '',
    r.ok
      ? 'Reachable, with valid metadata. This does NOT set up single sign-on: federation is configured in the identity provider.'
      : "Each step's detail is on the identity screen.",
  ];
}

export const identityScreen = defineScreen({
  name: 'identity',
  title: 'Identity check',
  resources: () => [{ id: 'settings', route: 'settings' }],
  render: ({ resources, width, height, state, setScroll }) => {
    const last = (state.extra.last as IdentityTestResult | undefined) ?? null;
    const lines: Line[] = [
      heading('Identity-provider connectivity pre-check'),
      ...wrapped([seg('▲ ', { tone: 'warn' })], NOT_SSO, width, { bold: true }),
      ...wrapped(
        [seg('  ')],
        't runs it for an OIDC issuer URL or a SAML metadata URL. It saves nothing and is audited; the appliance calls out, so it needs a role that may change the appliance.',
        width,
      ),
      ...contextLines(resources.settings.data as Settings | undefined, width),
      blank(),
      ...resultLines(last, width),
    ];
    return <LineView lines={lines} width={width} height={height} scroll={state.scroll} setScroll={setScroll} />;
  },
  // What Enter shows: the last check's whole answer (each step's detail uncut), else what the screen
  // says about the check; not the whole settings, the resource it reads them from.
  selected: (resources, state) => {
    const last = (state.extra.last as IdentityTestResult | undefined) ?? null;
    if (last) return last;
    const settings = resources.settings?.data as Settings | undefined;
    return {
      last_result: 'no check run yet in this session (t runs one)',
      identity_test: sectionValues(settings, 'identity_test'),
      sso: sectionValues(settings, 'sso'),
    };
  },
  actions: [
    {
      key: 't',
      label: 'run check',
      mutates: true,
      capability: 'identity.test',
      async run(ctx) {
        const prev = ctx.state.extra.lastInput as LastInput | undefined;
        const v = await ctx.form({
          title: 'Check an identity provider',
          message: NOT_SSO,
          fields: [
            {
              kind: 'select',
              name: 'provider',
              label: 'Provider',
              initial: prev?.provider ?? 'oidc',
              options: [
                { value: 'oidc', label: 'OpenID Connect (issuer URL)' },
                { value: 'saml', label: 'SAML 2.0 (metadata URL)' },
              ],
            },
            {
              kind: 'text',
              name: 'url',
              label: 'URL',
              initial: prev?.url ?? '',
              required: true,
              maxLength: 2048,
              hint: 'OIDC: the issuer, e.g. https://login.example.com/realm; SAML: the metadata URL',
              validate: urlProblem,
            },
          ],
          submitLabel: 'run check',
        });
        if (!v) return;
        const provider: Provider = v.provider === 'saml' ? 'saml' : 'oidc';
        const url = String(v.url);
        ctx.setExtra({ lastInput: { provider, url } });
        const body: IdentityTestRequest =
          provider === 'oidc' ? { provider, issuer_url: url } : { provider, metadata_url: url };
        const p = ctx.progress({
          title: `Checking ${provider.toUpperCase()} provider`,
          lines: [url, "Each step may take up to the appliance's timeout."],
        });
        let result: IdentityTestResult;
        try {
          result = await ctx.call('identityTest', { body, signal: p.signal });
        } catch (err) {
          if (p.signal.aborted)
            return {
              title: 'Stopped waiting',
              tone: 'warn',
              summary: ['The appliance may still finish the check; it records it in the audit trail.'],
            };
          throw err;
        } finally {
          p.close();
        }
        ctx.setExtra({ last: result });
        return {
          title: result.ok ? 'Identity check passed' : 'Identity check failed',
          tone: result.ok ? 'ok' : 'bad',
          summary: outcomeLines(result),
        };
      },
    },
  ],
});
