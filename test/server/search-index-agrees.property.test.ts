import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { openDatabase, type Db } from '../../src/server/db/open.js';
import { insertAuditBatch, type AuditSeed } from '../../src/server/governance/bulk.js';
import { listAudit } from '../../src/server/governance/audit-trail.js';
import { SEARCHED } from '../../src/server/db/searched.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * The trigram index only chooses which rows the LIKE reads (issue 37 §1): a search finds exactly the
 * rows the plain LIKE over every row finds, whatever the text holds (ASCII and other letter cases,
 * LIKE's own `%`, `_` and `\\`, letters whose case folds to more than one, astral characters).
 */
const ALPHABET = ['a', 'B', 'c', 'Ä', 'ä', 'ß', 'İ', 'i', 'ı', '%', '_', '\\', '"', ' ', '😀', 'é', 'É', '-', '*'];
const word = fc.array(fc.constantFrom(...ALPHABET), { minLength: 0, maxLength: 12 }).map((a) => a.join(''));

function plainLike(db: Db, q: string): string[] {
  const pattern = `%${q.replace(/[\\%_]/g, '\\$&')}%`;
  const where = SEARCHED.audit.columns.map((c) => `${c} LIKE @p ESCAPE '\\'`).join(' OR ');
  return db
    .prepare(`SELECT id FROM audit WHERE ${where} ORDER BY at_ms DESC, seq DESC`)
    .pluck()
    .all({ p: pattern }) as string[];
}

describe('a text search', () => {
  it('finds the rows the plain LIKE finds, through the index or not', () => {
    let n = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(word, word, word), { minLength: 1, maxLength: 30 }),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('same', 'upper', 'lower'),
        (rows, pick, cut, casing) => {
          const db = openDatabase(tempDir('aa-search-prop'));
          try {
            const seeds: AuditSeed[] = rows.map(([actor, name, note], i) => ({
              id: `aud_${n}_${i}`,
              actor: { subject: `u${actor}`, role: 'it_admin' },
              action: 'channel.update',
              target: { type: 'channel', id: `c${i}`, name },
              outcome: 'success',
              status: 200,
              request_id: `req_${i}`,
              source_ip: null,
              details: { note },
              at_ms: 1_790_000_000_000 + i * 1000,
            }));
            n++;
            insertAuditBatch(db, seeds);
            // a piece of one row's text, perhaps in another case (ASCII's, or the JavaScript one)
            const [a, b, c] = rows[pick % rows.length];
            const source = `${a}${b}${c}`;
            const start = cut % Math.max(1, source.length);
            let q = [...source].slice(start, start + 2 + (cut % 5)).join('');
            if (casing === 'upper') q = q.toUpperCase();
            if (casing === 'lower') q = q.toLowerCase();
            if ([...q.trim()].length < 2 || /\p{Cc}/u.test(q)) return;
            const found = listAudit(db, { limit: 100, q } as never).data.map((e) => e.id);
            expect(found, JSON.stringify(q)).toEqual(plainLike(db, q));
          } finally {
            db.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
