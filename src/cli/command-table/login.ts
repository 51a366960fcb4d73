/** `login` and `logout`: the stored sign-in with the identity provider. */
import type { CommandSpec } from './spec.js';

export const LOGIN: CommandSpec = {
  name: 'login',
  summary: 'sign in with the identity provider (device flow)',
  usage: [
    'login --issuer URL --client-id ID [--scope S] [--audience A] [--resource R]',
    '      [--url APPLIANCE [--ca-file FILE] [--insecure-http]] [--no-qr]',
  ],
  brief: 'login --issuer URL --client-id ID',
  description: `Signs in with the identity provider's device flow: open the page shown on any device (or scan
the QR code), enter the code, approve. The session is kept in
$XDG_CONFIG_HOME/appliance-admin/session.json (mode 0600) and renewed before it expires.
Without --issuer and --client-id, signs in again with the ones of the stored session.`,
  options: [
    { name: 'issuer', value: 'URL', description: 'the identity provider (https; http only on loopback)' },
    { name: 'client-id', value: 'ID', description: 'the public client registered for appliance-admin at the provider' },
    { name: 'scope', value: 'S', description: 'default: openid profile offline_access' },
    { name: 'audience', value: 'A', description: 'sent as audience= (providers such as Auth0)' },
    {
      name: 'resource',
      value: 'R',
      description: "sent as resource= (RFC 8707 resource indicator, the appliance's SSO audience)",
    },
    {
      name: 'url',
      value: 'APPLIANCE',
      description: 'also ask this appliance which role it gives you, and remember it',
    },
    {
      name: 'ca-file',
      value: 'FILE',
      completes: 'files',
      description: "PEM CA certificate to trust for the appliance's TLS",
    },
    {
      name: 'insecure-http',
      description: `allow plain http:// to an appliance other than this machine (the token
travels unencrypted; later commands with this sign-in need it too)`,
    },
    { name: 'no-qr', description: 'do not draw the QR code' },
  ],
  examples: [
    {
      command: 'login --issuer https://login.example.com --client-id appliance-admin --url https://appliance:8443',
      says: 'sign in, and remember the appliance',
    },
  ],
};

export const LOGOUT: CommandSpec = {
  name: 'logout',
  summary: 'forget the stored sign-in',
  usage: ['logout'],
  description: `Removes the stored sign-in ($XDG_CONFIG_HOME/appliance-admin/session.json) and, when the
identity provider offers it, revokes its refresh token there.`,
};
