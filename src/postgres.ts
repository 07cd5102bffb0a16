// `redline-loop/postgres`: the team backends, on one PostgreSQL database and schema (`pg`, loaded only when used).
export { PostgresLedger, type PostgresLedgerOptions } from './ledger/postgres/postgres-ledger.js';
export type { PgClient, PgPool } from './db/postgres/pg-pool.js';
export { PostgresReviewQueue, type PostgresReviewQueueOptions } from './review/postgres/postgres-review-queue.js';
