import { inTransaction, type PgPool } from '../../db/postgres/pg-pool.js';
import type { TaskPriors } from '../ledger.js';
import type { PriorsStore } from '../priors-store.js';

const EMPTY_PRIORS: TaskPriors = { runs: 0, gains: [] };

/** The priors in the PostgreSQL ledger's `adaptive_priors` table (of `schema`, quoted), one row per task type. */
export function postgresPriorsStore(pool: PgPool, schema: string): PriorsStore {
  const table = `${schema}.adaptive_priors`;
  const sql = {
    select: `SELECT entry FROM ${table} WHERE task_type = $1`,
    create: `INSERT INTO ${table} (task_type, entry, updated_at) VALUES ($1, $2, $3) ON CONFLICT (task_type) DO NOTHING`,
    lock: `SELECT entry FROM ${table} WHERE task_type = $1 FOR UPDATE`,
    update: `UPDATE ${table} SET entry = $2, updated_at = $3 WHERE task_type = $1`,
  };
  return {
    async read(taskType) {
      return (await pool.query<{ entry: string }>(sql.select, [taskType])).rows[0]?.entry;
    },
    update: (taskType, next) =>
      inTransaction(pool, async (client) => {
        // The first updater of a task type creates its row (an empty entry, never committed as such); every
        // updater then locks the row before reading it, so concurrent updates queue instead of losing one.
        await client.query(sql.create, [taskType, JSON.stringify(EMPTY_PRIORS), Date.now()]);
        const [row] = (await client.query<{ entry: string }>(sql.lock, [taskType])).rows;
        await client.query(sql.update, [taskType, next(row?.entry), Date.now()]);
      }),
  };
}
