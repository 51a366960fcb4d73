import { describe, expect, it } from 'vitest';
import Database from '../../src/server/db/sqlite-driver.js';
import { migrations } from '../../src/server/db/migrations.js';
import { ROLES } from '../../src/contract/roles.js';

/**
 * The first migration is history and keeps its CHECK literal; the roles' one table is
 * src/contract/roles.ts. This keeps the two saying the same roles.
 */
describe('the database CHECK on api_tokens.role', () => {
  const checks = migrations.flatMap((m) => [...m.sql.matchAll(/CHECK \(role IN \(([^)]*)\)\)/g)].map((x) => x[1]));

  it('lists exactly ROLES, in every migration that writes one', () => {
    expect(checks.length).toBeGreaterThan(0);
    for (const list of checks) expect(list.split(',').map((r) => r.trim().replace(/^'|'$/g, ''))).toEqual([...ROLES]);
  });

  it('takes each of ROLES and refuses another', () => {
    const db = new Database(':memory:');
    db.exec(migrations[0].sql);
    const insert = db.prepare(
      "INSERT INTO api_tokens (id, name, role, token_hash, created_at) VALUES (?, ?, ?, ?, '2026-01-01T00:00:00Z')",
    );
    for (const role of ROLES) insert.run(`tok_${role}`, role, role, `hash_${role}`);
    expect(() => insert.run('tok_x', 'x', 'superuser', 'hash_x')).toThrow(/CHECK/);
    db.close();
  });
});
