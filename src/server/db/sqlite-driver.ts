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

const Database = createRequire(import.meta.url)(SQLITE_PACKAGE) as typeof BetterSqlite3;
export default Database;
export type { Database as Db, Statement } from 'better-sqlite3';
