import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argvForAppliance } from '../../src/cli/dashboard-flags.js';
import { saveScreenColumns, saveScreenSort } from '../../src/config/save.js';
import { tempDir } from '../helpers/fixtures.js';

describe(':columns save and :appliance', () => {
  it('writes a screen’s columns into the config file and keeps the rest, comments included', async () => {
    const file = join(tempDir('aa-save'), 'config.yaml');
    writeFileSync(file, '# mine\nscreen: keys # start here\nscreens:\n  usage:\n    sort: Key\n', { mode: 0o600 });
    await saveScreenColumns(file, 'keys', ['Name', 'Status']);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# mine');
    expect(text).toContain('screen: keys # start here');
    expect(text).toMatch(/usage:\n\s+sort: Key/);
    expect(text).toMatch(/keys:\n\s+columns: \[ Name, Status \]/);
    await saveScreenSort(file, 'keys', 'Last used desc');
    expect(readFileSync(file, 'utf8')).toMatch(/keys:\n\s+columns: \[ Name, Status \]\n\s+sort: Last used desc/);
  });

  it('makes the file (mode 0600, folder 0700) when there is none', async () => {
    const dir = join(tempDir('aa-save'), 'appliance-admin');
    const file = join(dir, 'config.yaml');
    await saveScreenColumns(file, 'jobs', ['Connector']);
    expect(readFileSync(file, 'utf8')).toMatch(/jobs:\n\s+columns: \[ Connector \]/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('starts again on the named appliance: its connection replaces the one given', () => {
    expect(
      argvForAppliance(['--url', 'https://a', '--token-file', 't', '--screen', 'keys', '--refresh=5s'], 'prod'),
    ).toEqual(['--screen', 'keys', '--refresh=5s', '--appliance', 'prod']);
    expect(argvForAppliance(['demo', '--role', 'auditor', '--appliance=x'], 'prod')).toEqual(['--appliance', 'prod']);
  });
});
