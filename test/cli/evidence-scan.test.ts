import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretIn } from '../../src/audit-chain/evidence-contents.js';
import { tempDir } from '../helpers/fixtures.js';

const secret = (prefix: string) => `${prefix}${'Ab9_-'.repeat(8)}xyz`; // 43 characters after the prefix

/** A file whose third line holds `text`, the others harmless. */
/** The bearer token in use, as the pack maker is given it: a test of a text, never the token itself. */
const holding = (token: string) => (text: string) => token !== '' && text.includes(token);
const none = holding('');

function fileWith(text: string): string {
  const file = join(tempDir('aa-scan'), 'audit.jsonl');
  writeFileSync(file, ['{"a":1}', '{"b":"Bearer abcdefghijklmnopqrstuvwxyz"}', text, '{"c":3}'].join('\n'));
  return file;
}

describe('the evidence scan', () => {
  it("finds this appliance's own credentials, naming the line", async () => {
    expect(await secretIn(fileWith(`{"name":"${secret('agk_')}"}`), none)).toEqual({
      secret: 'a gateway key secret',
      line: 3,
    });
    expect(await secretIn(fileWith(`x,Bearer ${secret('aat_')},y`), none)).toEqual({
      secret: 'an admin token',
      line: 3,
    });
    expect(await secretIn(fileWith('{"pem":"-----BEGIN PRIVATE KEY-----\\nMC4CAQAw"}'), none)).toEqual({
      secret: 'a private key',
      line: 3,
    });
    expect(await secretIn(fileWith('{"note":"used tok-1234"}'), holding('tok-1234'))).toEqual({
      secret: 'the bearer token used to make it',
      line: 3,
    });
  });

  it('passes generic credential-like text anyone may type into a name', async () => {
    for (const text of [
      '{"name":"note: Bearer abcdefghijklmnopqrstuvwxyz"}',
      `{"name":"agk_short","prefix":"agk_Ab9_"}`,
      `{"name":"${secret('agk_')}more"}`,
      '{"name":"PRIVATE KEY-----"}',
    ])
      expect(await secretIn(fileWith(text), none)).toBeNull();
  });
});
