// `redline-loop/sqlite`: the embedded backends, on one SQLite file (better-sqlite3, loaded only when used).
export { SqliteLedger, type SqliteLedgerOptions } from './ledger/sqlite/sqlite-ledger.js';
export type { SqliteDatabase, SqliteStatement } from './db/sqlite/sqlite-database.js';
export { SqliteReviewQueue, type SqliteReviewQueueOptions } from './review/sqlite/sqlite-review-queue.js';
