import type { MigrationVersion } from '../migrations.js';
import { summarySql } from '../summary-sql.js';
import { SQLITE_DIALECT } from './sqlite-dialect.js';

const SUMMARY = summarySql(SQLITE_DIALECT);

const REFUSE_CHANGE_AFTER_SEAL = `
CREATE TRIGGER runs_refuse_change_after_seal BEFORE UPDATE ON runs
WHEN OLD.sealed = 1
BEGIN SELECT RAISE(ABORT, 'redline.ledger.sealed: a sealed run cannot change'); END;
`;

/**
 * The trigger that seals the run row as `run.sealed` goes in: the new head and the seal's own fields, and
 * since version 7 the `derived` summary: `columns` set on the row, then one statement.
 */
function sealRunTrigger(derived?: { columns: readonly string[]; then: string }): string {
  const sets = [
    'record_count = NEW.seq + 1',
    'last_hash = NEW.hash',
    'sealed = 1',
    "outcome = json_extract(NEW.body, '$.data.outcome')",
    "verification = json_extract(NEW.body, '$.data.verification')",
    "stop_reason = json_extract(NEW.body, '$.data.stopReason')",
    ...(derived?.columns ?? []),
  ];
  return `CREATE TRIGGER records_seal_run AFTER INSERT ON records
WHEN NEW.type = 'run.sealed'
BEGIN
  UPDATE runs SET
    ${sets.join(',\n    ')}
  WHERE run_id = NEW.run_id;${derived === undefined ? '' : `\n  ${derived.then};`}
END;`;
}

/**
 * The guards on `records`: refuse an insert into a sealed run or out of order, refuse any update or
 * delete, and advance (or seal) the run row with the insert. Dropped with the table, so a migration that
 * rebuilds `records` creates them again.
 */
const RECORD_TRIGGERS = `
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

${sealRunTrigger()}

CREATE TRIGGER records_refuse_update BEFORE UPDATE ON records
BEGIN SELECT RAISE(ABORT, 'redline.ledger.append_only: records cannot be changed'); END;

CREATE TRIGGER records_refuse_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'redline.ledger.append_only: records cannot be deleted'); END;
`;

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

${RECORD_TRIGGERS}
${REFUSE_CHANGE_AFTER_SEAL}
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
  // Version 1 kept records in a WITHOUT ROWID table, whose rows store at most ~1 KB on a 4 KB page: each
  // attempt record spilled its tail onto an overflow page of its own, mostly empty. A rowid table keeps a
  // row of up to ~4 KB on its page; the unique index keeps (run_id, seq) a key. The rows are copied as
  // they are (same bytes, so every hash still holds) inside the migration's transaction, by SQLite alone,
  // so no row passes through the process; the old table's pages are freed for reuse (see reclaim-space.ts).
  4: `
CREATE TABLE records_rowid (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  seq        INTEGER NOT NULL,
  type       TEXT NOT NULL,
  body       TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL
);
INSERT INTO records_rowid (run_id, seq, type, body, prev_hash, hash)
  SELECT run_id, seq, type, body, prev_hash, hash FROM records ORDER BY run_id, seq;
DROP TABLE records;
ALTER TABLE records_rowid RENAME TO records;
CREATE UNIQUE INDEX records_by_run ON records (run_id, seq);
${RECORD_TRIGGERS}
`,
  // Linked runs (a run that resolves a sealed one) and plan hashes, copied from `run.started` when a run
  // row is inserted: the newest sealed run of a mission's plan, and the runs that resolve a run, are
  // index look-ups. Runs recorded before keep NULL (they had neither).
  5: `
ALTER TABLE runs ADD COLUMN plan_hash TEXT;
ALTER TABLE runs ADD COLUMN resolves TEXT;
CREATE INDEX runs_by_plan ON runs (mission_id, plan_hash, started_at, run_id) WHERE plan_hash IS NOT NULL;
CREATE INDEX runs_by_resolves ON runs (resolves) WHERE resolves IS NOT NULL;
`,
  // The runs page (`redline serve`) reads one page of runs newest first, filtered by mission, outcome or
  // task type: each filter walks its own index in start order and stops after a page.
  6: `
DROP INDEX runs_by_task_type;
CREATE INDEX runs_by_task_type ON runs (task_type, started_at, run_id);
CREATE INDEX runs_by_mission ON runs (mission_id, started_at, run_id);
CREATE INDEX runs_by_outcome ON runs (outcome, started_at, run_id) WHERE outcome IS NOT NULL;
`,
  // What the reports tally, derived from the records as the seal goes in (docs/ledger.md, "Derived
  // columns"): the guards, shadow verdict and spend on the run's row, the scored attempts in a narrow table
  // (indexed by candidate for the judge's noise), so a tally is GROUP BY over columns and reads no JSON.
  // Runs sealed before are filled here: the sealed-run guard stands down for that one UPDATE.
  7: `
ALTER TABLE runs ADD COLUMN guards TEXT;
ALTER TABLE runs ADD COLUMN shadow TEXT;
ALTER TABLE runs ADD COLUMN cost_usd REAL;
CREATE TABLE scores (
  run_id     TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  candidate  TEXT NOT NULL,
  score      REAL NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX scores_by_candidate ON scores (candidate, score);
-- The tally's GROUP BY (sql-statements.ts, the same day expression) walks this index in group order and
-- reads nothing else: no sort, no row look-up.
CREATE INDEX runs_tally ON runs (sealed, started_at / 86400000, outcome, stop_reason, guards, shadow, cost_usd);

DROP TRIGGER records_seal_run;
${sealRunTrigger({
  columns: [
    `guards = ${SUMMARY.guards('NEW.run_id')}`,
    `shadow = ${SUMMARY.shadow('NEW.body')}`,
    `cost_usd = ${SUMMARY.costUsd('NEW.body')}`,
  ],
  then: SUMMARY.insertScores('r.run_id = NEW.run_id'),
})}

DROP TRIGGER runs_refuse_change_after_seal;
UPDATE runs SET
  guards = ${SUMMARY.guards('runs.run_id')},
  shadow = ${SUMMARY.shadow('(SELECT body FROM records s WHERE s.run_id = runs.run_id AND s.seq = runs.record_count - 1)')},
  cost_usd = ${SUMMARY.costUsd('(SELECT body FROM records s WHERE s.run_id = runs.run_id AND s.seq = runs.record_count - 1)')}
WHERE sealed = 1;
${SUMMARY.insertScores('r.sealed = 1')};
${REFUSE_CHANGE_AFTER_SEAL}`,
};
