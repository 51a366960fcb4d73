import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSession, storedSessionOf, writeSession, type StoredSession } from '../../src/client/session/store.js';
import { SessionFileError } from '../../src/client/session/errors.js';

// The stored sign-in is read without zod (the dashboard's start path: docs/performance.md); these
// pin the rules that zod's schema used to give it.
const SESSION: StoredSession = {
  version: 1,
  issuer: 'https://idp.example',
  client_id: 'appliance-admin',
  access_token: 'at',
  refresh_token: 'rt',
  expires_at: 1_800_000_000_000,
  obtained_at: 1_799_999_000_000,
  subject: 'alice',
  signed_in_at: '2026-11-27T02:00:00Z',
};

const { issuer: _issuer, ...withoutIssuer } = SESSION;

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('the stored sign-in, checked without zod', () => {
  it('keeps a complete sign-in as it is, and drops fields it does not know', () => {
    expect(storedSessionOf(SESSION)).toEqual(SESSION);
    expect(storedSessionOf({ ...SESSION, password: 'x', extra: { a: 1 } })).toEqual(SESSION);
    expect(storedSessionOf({ ...SESSION, expires_at: null, refresh_token: undefined })).toEqual({
      ...SESSION,
      expires_at: null,
      refresh_token: undefined,
    });
  });

  it.each<[string, unknown]>([
    ['not an object', 'text'],
    ['a list', [SESSION]],
    ['null', null],
    ['another version', { ...SESSION, version: 2 }],
    ['no issuer', { ...SESSION, issuer: undefined }],
    ['an empty access token', { ...SESSION, access_token: '' }],
    ['a numeric client id', { ...SESSION, client_id: 7 }],
    ['no expiry at all', { ...SESSION, expires_at: undefined }],
    ['an expiry that is no number', { ...SESSION, expires_at: '2026' }],
    ['an infinite expiry', { ...SESSION, expires_at: Infinity }],
    ['an optional field of the wrong kind', { ...SESSION, scope: ['openid'] }],
    ['an inherited field only', Object.assign(Object.create({ issuer: 'x' }), withoutIssuer)],
  ])('refuses %s', (_why, value) => {
    expect(storedSessionOf(value)).toBeNull();
  });

  it('writes only the known fields, reads back what it wrote, and calls a damaged file damaged', () => {
    dir = mkdtempSync(join(tmpdir(), 'stored-session-'));
    const file = join(dir, 'session.json');
    writeSession(file, { ...SESSION, stray: 'dropped' } as StoredSession);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(SESSION);
    expect(readSession(file)).toEqual(SESSION);
    writeFileSync(file, JSON.stringify({ ...SESSION, access_token: 5 }), { mode: 0o600 });
    expect(() => readSession(file)).toThrow(SessionFileError);
    expect(() => readSession(file)).toThrow(/is damaged; run: appliance-admin logout/);
    expect(() => writeSession(file, { ...SESSION, issuer: undefined } as unknown as StoredSession)).toThrow(
      SessionFileError,
    );
  });
});
