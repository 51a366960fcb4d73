import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * better-sqlite3, in the major version that works on this Node. 12 on Node 20: 13 needs Node 22
 * (it crashes on 20). 13 on Node 22 and later: 12, compiled against the headers of Node 24.19 and
 * later, aborts the process when V8 collects a statement outside a context (Node's ObjectWrap
 * change, nodejs/node#65446; 13 is built on node-addon-api). Both are installed (13 under the alias
 * better-sqlite3-n22); their API and types are the same.
 */
const SQLITE_PACKAGE = Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-n22' : 'better-sqlite3';

/**
 * An install without it: the npm package declares both as optional (the dashboard and the checks
 * need neither), so an offline `npm install` of the tarball leaves them out (README.md, "Install").
 */
class SqliteMissing extends Error {
  override name = 'SqliteMissing';
}

function loadDriver(): typeof BetterSqlite3 {
  try {
    return createRequire(import.meta.url)(SQLITE_PACKAGE) as typeof BetterSqlite3;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    throw new SqliteMissing(
      `the server needs its native SQLite module (${SQLITE_PACKAGE}), which is not installed: npm installs it with ` +
        'appliance-admin when it can reach the npm registry, or use the Debian package, which holds it',
      { cause: err },
    );
  }
}

const Database = loadDriver();
export default Database;
export type { Database as Db, Statement } from 'better-sqlite3';
