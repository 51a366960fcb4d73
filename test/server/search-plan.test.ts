import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { trigramQuery, trigramsOf } from '../../src/server/governance/search.js';

/** The FTS5 query a search text becomes: every trigram, quoted, whatever the text holds (issue 37 §1). */
describe('trigramQuery', () => {
  it('has no trigram under three characters: such a text is read in time order instead', () => {
    expect(trigramsOf('ab')).toEqual([]);
    expect(trigramsOf('é✓')).toEqual([]);
  });

  it('asks for each distinct trigram once, by code point', () => {
    expect(trigramQuery(trigramsOf('abab'))).toBe('"aba" AND "bab"');
    expect(trigramQuery(trigramsOf('a😀bc'))).toBe('"a😀b" AND "😀bc"');
  });

  it('quotes what FTS5 would read as syntax, so that any text is a query and never an error', () => {
    const db = new Database(':memory:');
    db.exec(
      `CREATE VIRTUAL TABLE f USING fts5(a, content='', contentless_delete=1, tokenize='trigram', detail='none')`,
    );
    const texts = ['say "hi" now', 'a AND b OR NOT c', 'x*(y) ^z: {a} -b +c', 'NEAR(ab cd)', "it's"];
    texts.forEach((t, i) => db.prepare('INSERT INTO f (rowid, a) VALUES (?, ?)').run(i + 1, `before ${t} after`));
    for (const [i, t] of texts.entries()) {
      const rows = db
        .prepare('SELECT rowid FROM f WHERE f MATCH ?')
        .pluck()
        .all(trigramQuery(trigramsOf(t)));
      expect(rows, t).toContain(i + 1);
    }
  });
});
