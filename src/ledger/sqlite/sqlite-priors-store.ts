import type { SqliteDatabase } from '../../db/sqlite/sqlite-database.js';
import type { PriorsStore } from '../priors-store.js';

/** The priors in the SQLite ledger's `adaptive_priors` table, one row per task type. */
export function sqlitePriorsStore(db: SqliteDatabase): PriorsStore {
  const select = db.prepare('SELECT entry FROM adaptive_priors WHERE task_type = ?');
  const upsert = db.prepare(
    'INSERT INTO adaptive_priors (task_type, entry, updated_at) VALUES (?, ?, ?) ON CONFLICT (task_type) DO UPDATE SET entry = excluded.entry, updated_at = excluded.updated_at',
  );
  const entry = (taskType: string): string | undefined => (select.get(taskType) as { entry: string } | undefined)?.entry;
  return {
    async read(taskType) {
      return entry(taskType);
    },
    async update(taskType, next) {
      // IMMEDIATE takes the write lock before the read, so an update in another process waits (busy_timeout)
      // and then reads what this one wrote: no update is lost.
      db.exec('BEGIN IMMEDIATE');
      try {
        upsert.run(taskType, next(entry(taskType)), Date.now());
        db.exec('COMMIT');
      } catch (error) {
        // A failed COMMIT may have ended the transaction already.
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
  };
}
