import type { MigrationVersion } from '../migrations.js';
import { summarySql } from '../summary-sql.js';
import { postgresDialect } from './postgres-dialect.js';

/**
 * The body of `records_after_insert`: it advances the run row's head with each record and, as `run.sealed`
 * goes in, seals the row with the seal's own fields; since version 7 also the `derived` summary: `columns`
 * set on the row (NULL but for a seal), then one statement run on a seal.
 */
function recordsAfterInsertBody(S: string, derived?: { columns: readonly string[]; then: string }): string {
  const sets = [
    'record_count = NEW.seq + 1',
    'last_hash = NEW.hash',
    'sealed = sealing',
    "outcome = data ->> 'outcome'",
    "verification = data ->> 'verification'",
    "stop_reason = data ->> 'stopReason'",
    ...(derived?.columns ?? []),
  ];
  return `DECLARE sealing BOOLEAN := NEW.type = 'run.sealed';
DECLARE data JSONB := CASE WHEN NEW.type = 'run.sealed' THEN (NEW.body::jsonb) -> 'data' END;
BEGIN
  UPDATE ${S}.runs SET
    ${sets.join(',\n    ')}
  WHERE run_id = NEW.run_id;${derived === undefined ? '' : `\n  IF sealing THEN\n    ${derived.then};\n  END IF;`}
  RETURN NULL;
END $$;`;
}

/**
 * PostgreSQL DDL per schema version. `S` is the ledger's schema, quoted; every name is qualified with it
 * so the triggers work whatever the session's `search_path`.
 */
export const POSTGRES_MIGRATIONS: Record<MigrationVersion, (S: string) => string> = {
  1: (S) => `
CREATE TABLE ${S}.runs (
  run_id        TEXT PRIMARY KEY,
  mission_id    TEXT NOT NULL,
  task_type     TEXT NOT NULL,
  started_at    BIGINT NOT NULL,
  record_count  INTEGER NOT NULL,
  last_hash     TEXT NOT NULL,
  sealed        BOOLEAN NOT NULL DEFAULT FALSE,
  outcome       TEXT,
  verification  TEXT,
  stop_reason   TEXT
);
CREATE INDEX runs_by_unsealed ON ${S}.runs (started_at) WHERE NOT sealed;
CREATE INDEX runs_by_task_type ON ${S}.runs (task_type, started_at);

CREATE TABLE ${S}.records (
  run_id     TEXT NOT NULL REFERENCES ${S}.runs (run_id),
  seq        INTEGER NOT NULL,
  type       TEXT NOT NULL,
  body       TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE FUNCTION ${S}.records_before_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE head ${S}.runs%ROWTYPE;
BEGIN
  SELECT * INTO head FROM ${S}.runs WHERE run_id = NEW.run_id FOR UPDATE;
  IF head.sealed THEN
    RAISE EXCEPTION 'redline.ledger.sealed: the run is sealed and accepts no more records';
  END IF;
  IF head.record_count IS DISTINCT FROM NEW.seq OR head.last_hash IS DISTINCT FROM NEW.prev_hash THEN
    RAISE EXCEPTION 'redline.ledger.out_of_order: the record does not follow the run''s last record';
  END IF;
  RETURN NEW;
END $$;

CREATE FUNCTION ${S}.records_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
${recordsAfterInsertBody(S)}

CREATE FUNCTION ${S}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'runs' AND TG_OP = 'UPDATE' THEN
    IF NOT OLD.sealed THEN
      RETURN NEW;
    END IF;
  END IF;
  RAISE EXCEPTION 'redline.ledger.append_only: % on % refused: the ledger is append-only and a sealed run is final', TG_OP, TG_TABLE_NAME;
END $$;

CREATE TRIGGER records_before_insert BEFORE INSERT ON ${S}.records FOR EACH ROW EXECUTE FUNCTION ${S}.records_before_insert();
CREATE TRIGGER records_after_insert AFTER INSERT ON ${S}.records FOR EACH ROW EXECUTE FUNCTION ${S}.records_after_insert();
CREATE TRIGGER records_refuse_change BEFORE UPDATE OR DELETE ON ${S}.records FOR EACH ROW EXECUTE FUNCTION ${S}.refuse_change();
CREATE TRIGGER records_refuse_truncate BEFORE TRUNCATE ON ${S}.records FOR EACH STATEMENT EXECUTE FUNCTION ${S}.refuse_change();
CREATE TRIGGER runs_refuse_change BEFORE UPDATE OR DELETE ON ${S}.runs FOR EACH ROW EXECUTE FUNCTION ${S}.refuse_change();
`,
  // What `adaptive` learned per task type: derived from sealed runs, so not chained; `learn` rewrites a row in place.
  2: (S) => `
CREATE TABLE ${S}.adaptive_priors (
  task_type   TEXT PRIMARY KEY,
  entry       TEXT NOT NULL,
  updated_at  BIGINT NOT NULL
);
`,
  // Streams (verify, export, replay, the head digest) read runs in keyset pages of `(started_at, run_id)`.
  3: (S) => `
CREATE INDEX runs_in_start_order ON ${S}.runs (started_at, run_id);
`,
  // SQLite's records table changed layout (its WITHOUT ROWID rows spilled onto overflow pages); PostgreSQL
  // stores long rows out of line already (TOAST), so its version 4 changes nothing.
  4: () => '-- records keep their layout',
  // Linked runs and plan hashes, copied from `run.started` when a run row is inserted (see the SQLite twin).
  5: (S) => `
ALTER TABLE ${S}.runs ADD COLUMN plan_hash TEXT;
ALTER TABLE ${S}.runs ADD COLUMN resolves TEXT;
CREATE INDEX runs_by_plan ON ${S}.runs (mission_id, plan_hash, started_at, run_id) WHERE plan_hash IS NOT NULL;
CREATE INDEX runs_by_resolves ON ${S}.runs (resolves) WHERE resolves IS NOT NULL;
`,
  // Pages of runs newest first, filtered by mission, outcome or task type (see the SQLite twin).
  6: (S) => `
CREATE INDEX runs_by_mission ON ${S}.runs (mission_id, started_at, run_id);
CREATE INDEX runs_by_outcome ON ${S}.runs (outcome, started_at, run_id) WHERE outcome IS NOT NULL;
DROP INDEX ${S}.runs_by_task_type;
CREATE INDEX runs_by_task_type ON ${S}.runs (task_type, started_at, run_id);
`,
  // What the reports tally, derived as the seal goes in, and filled for runs sealed before (see the SQLite twin).
  7: (S) => {
    const summary = summarySql(postgresDialect(S));
    const sealBody = `(SELECT body FROM ${S}.records s WHERE s.run_id = runs.run_id AND s.seq = runs.record_count - 1)`;
    return `
ALTER TABLE ${S}.runs ADD COLUMN guards TEXT;
ALTER TABLE ${S}.runs ADD COLUMN shadow TEXT;
ALTER TABLE ${S}.runs ADD COLUMN cost_usd DOUBLE PRECISION;
CREATE TABLE ${S}.scores (
  run_id     TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  candidate  TEXT NOT NULL,
  score      DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX scores_by_candidate ON ${S}.scores (candidate, score);

CREATE OR REPLACE FUNCTION ${S}.records_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
${recordsAfterInsertBody(S, {
  columns: [
    `guards = CASE WHEN sealing THEN ${summary.guards('NEW.run_id')} END`,
    `shadow = CASE WHEN sealing THEN ${summary.shadow('NEW.body')} END`,
    `cost_usd = CASE WHEN sealing THEN ${summary.costUsd('NEW.body')} END`,
  ],
  then: summary.insertScores('r.run_id = NEW.run_id'),
})}

ALTER TABLE ${S}.runs DISABLE TRIGGER runs_refuse_change;
UPDATE ${S}.runs SET
  guards = ${summary.guards('runs.run_id')},
  shadow = ${summary.shadow(sealBody)},
  cost_usd = ${summary.costUsd(sealBody)}
WHERE sealed;
ALTER TABLE ${S}.runs ENABLE TRIGGER runs_refuse_change;
${summary.insertScores('r.sealed')};
`;
  },
};
