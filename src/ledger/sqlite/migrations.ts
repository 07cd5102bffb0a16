import type { MigrationVersion } from '../migrations.js';

/** SQLite DDL per schema version. The triggers make the database itself keep the chain append-only. */
export const SQLITE_MIGRATIONS: Record<MigrationVersion, string> = {
  1: `
CREATE TABLE runs (
  run_id        TEXT PRIMARY KEY,
  mission_id    TEXT NOT NULL,
  task_type     TEXT NOT NULL,
  started_at    INTEGER NOT NULL,
  record_count  INTEGER NOT NULL,
  last_hash     TEXT NOT NULL,
  sealed        INTEGER NOT NULL DEFAULT 0,
  outcome       TEXT,
  verification  TEXT,
  stop_reason   TEXT
);
CREATE INDEX runs_by_sealed ON runs (sealed);
CREATE INDEX runs_by_task_type ON runs (task_type, started_at);

CREATE TABLE records (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  seq        INTEGER NOT NULL,
  type       TEXT NOT NULL,
  body       TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER records_refuse_after_seal BEFORE INSERT ON records
WHEN (SELECT sealed FROM runs WHERE run_id = NEW.run_id) = 1
BEGIN SELECT RAISE(ABORT, 'redline.ledger.sealed: the run is sealed and accepts no more records'); END;

CREATE TRIGGER records_refuse_out_of_order BEFORE INSERT ON records
WHEN NEW.seq IS NOT (SELECT record_count FROM runs WHERE run_id = NEW.run_id)
  OR NEW.prev_hash IS NOT (SELECT last_hash FROM runs WHERE run_id = NEW.run_id)
BEGIN SELECT RAISE(ABORT, 'redline.ledger.out_of_order: the record does not follow the run''s last record'); END;

-- Two triggers so that an ordinary append leaves the indexed seal columns untouched.
CREATE TRIGGER records_advance_head AFTER INSERT ON records
WHEN NEW.type <> 'run.sealed'
BEGIN
  UPDATE runs SET record_count = NEW.seq + 1, last_hash = NEW.hash WHERE run_id = NEW.run_id;
END;

CREATE TRIGGER records_seal_run AFTER INSERT ON records
WHEN NEW.type = 'run.sealed'
BEGIN
  UPDATE runs SET
    record_count = NEW.seq + 1,
    last_hash = NEW.hash,
    sealed = 1,
    outcome = json_extract(NEW.body, '$.data.outcome'),
    verification = json_extract(NEW.body, '$.data.verification'),
    stop_reason = json_extract(NEW.body, '$.data.stopReason')
  WHERE run_id = NEW.run_id;
END;

CREATE TRIGGER records_refuse_update BEFORE UPDATE ON records
BEGIN SELECT RAISE(ABORT, 'redline.ledger.append_only: records cannot be changed'); END;

CREATE TRIGGER records_refuse_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'redline.ledger.append_only: records cannot be deleted'); END;

CREATE TRIGGER runs_refuse_change_after_seal BEFORE UPDATE ON runs
WHEN OLD.sealed = 1
BEGIN SELECT RAISE(ABORT, 'redline.ledger.sealed: a sealed run cannot change'); END;

CREATE TRIGGER runs_refuse_delete BEFORE DELETE ON runs
BEGIN SELECT RAISE(ABORT, 'redline.ledger.append_only: runs cannot be deleted'); END;
`,
  // What `adaptive` learned per task type: derived from sealed runs, so not chained; `learn` rewrites a row in place.
  2: `
CREATE TABLE adaptive_priors (
  task_type   TEXT PRIMARY KEY,
  entry       TEXT NOT NULL,
  updated_at  INTEGER NOT NULL
) WITHOUT ROWID;
`,
  // Streams (verify, export, replay, the head digest) read runs in keyset pages of `(started_at, run_id)`.
  3: `
CREATE INDEX runs_in_start_order ON runs (started_at, run_id);
`,
};
