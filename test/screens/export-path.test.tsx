import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { setupScreenSuite } from '../helpers/screen-suite.js';
import { tempDir } from '../helpers/fixtures.js';

const suite = setupScreenSuite();

/** An export folder holding reports/2026/, reports/2025/, release-notes.txt and .hidden/. */
function exportFolder(): string {
  const dir = tempDir('export-path');
  mkdirSync(join(dir, 'reports', '2026'), { recursive: true });
  mkdirSync(join(dir, 'reports', '2025'), { recursive: true });
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(join(dir, 'release-notes.txt'), '');
  return dir;
}

describe('the export dialog file field', () => {
  it('starts in the export folder, says so, and Tab completes its entries like a shell', async () => {
    const folder = exportFolder();
    const d = suite.render({ screen: 'journal', exportFolder: folder, columns: 120, rows: 40 });
    await d.waitForText('[journal]');
    await d.press('w');
    const form = await d.waitForText('Export the agent journal');
    expect(form.replace(/[│\s]+/g, '')).toContain(`Folder:${folder}`);
    await d.press('tab'); // format → file
    await d.waitFor((f) => f.includes('Tab completes · Shift-Tab/↑↓ move'), 'the file field focused');
    expect(d.frame()).toContain('in the folder above unless it starts with / or ~; Tab completes');
    await d.write('\x15'); // Ctrl-U: the default name goes
    await d.type('re');
    await d.press('tab');
    // two matches: completed to what they share, both listed
    let f = await d.waitFor((x) => x.includes('release-notes.txt  reports/'), 'the candidates');
    expect(f).toMatch(/File\s+re\s/);
    await d.type('p');
    await d.press('tab');
    f = await d.waitFor((x) => /File\s+reports\/\s/.test(x), 'reports/ completed');
    expect(f).not.toContain('release-notes.txt');
    await d.type('2026');
    await d.press('tab');
    await d.waitFor((x) => /File\s+reports\/2026\/\s/.test(x), 'reports/2026/ completed');
    await d.type('out.csv');
    await d.press('enter');
    await d.waitForText('Export written', 10_000);
    // written in the export folder, not the working directory
    expect(readFileSync(join(folder, 'reports', '2026', 'out.csv'), 'utf8')).toMatch(/^id,/);
    // the action log has the export, as the CLI command that makes the same file
    await d.press('enter');
    await d.press(':');
    await d.type('log');
    await d.press('enter');
    await d.waitFor((x) => /GET\s+\/agent\/journal\/export\S*\s+200/.test(x), 'the export in the log');
    await d.press('enter');
    // Enter fetches the audit entry, then shows it beside the command (the hints say "command" before that)
    const detail = (await d.waitForText(/Audit entry #/)).replace(/\x1b\[[0-9;]*m|[│\s]/g, '');
    const dest = join(folder, 'reports', '2026', 'out.csv');
    expect(detail).toContain(`appliance-adminexportjournal-o'${dest}'--format'csv'--url'${suite.server.url}'`);
  });

  it('hidden entries complete only once a . is typed; no match leaves the text as it is', async () => {
    const folder = exportFolder();
    const d = suite.render({ screen: 'journal', exportFolder: folder });
    await d.waitForText('[journal]');
    await d.press('w');
    await d.waitForText('Export the agent journal');
    await d.press('tab');
    await d.write('\x15');
    await d.type('.h');
    await d.press('tab');
    await d.waitFor((x) => /File\s+\.hidden\/\s/.test(x), '.hidden/ completed');
    await d.write('\x15');
    await d.type('zzz');
    await d.press('tab');
    // a key typed after the Tab follows the text as it was
    await d.type('!');
    await d.waitFor((x) => /File\s+zzz!\s/.test(x), 'zzz left as it is');
  });
});
