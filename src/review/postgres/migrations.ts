import type { ReviewMigrationVersion } from '../migrations.js';

/**
 * PostgreSQL DDL per schema version; `S` is the schema, quoted, shared with the ledger. Items keep the
 * whole brief as JSON in `item`; the columns beside it are what the queue orders, filters and locks by.
 * `review_state.depth` counts the open items: every change of depth locks that row anyway, and reading
 * the count there costs nothing where counting the open items under MVCC visits each one.
 */
export const POSTGRES_REVIEW_MIGRATIONS: Record<ReviewMigrationVersion, (S: string) => string> = {
  1: (S) => `
CREATE TABLE ${S}.review_state (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  mode           TEXT NOT NULL CHECK (mode IN ('normal', 'degraded')),
  attempt_limit  INTEGER NOT NULL,
  alert_active   BOOLEAN NOT NULL DEFAULT FALSE,
  depth          INTEGER NOT NULL DEFAULT 0 CHECK (depth >= 0)
);

CREATE TABLE ${S}.review_items (
  seq          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id           TEXT NOT NULL UNIQUE,
  run_id       TEXT NOT NULL UNIQUE,
  priority     DOUBLE PRECISION NOT NULL,
  item         TEXT NOT NULL,
  enqueued_at  BIGINT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('open', 'decided', 'dropped')),
  claims       INTEGER NOT NULL DEFAULT 0,
  claimed_by   TEXT,
  claimed_at   BIGINT,
  lease_until  BIGINT
);
CREATE INDEX review_items_review_order ON ${S}.review_items (priority DESC, seq) WHERE state = 'open';
CREATE INDEX review_items_drop_order ON ${S}.review_items (priority, seq) WHERE state = 'open';

CREATE TABLE ${S}.review_breaker_log (
  seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  item_id       TEXT NOT NULL REFERENCES ${S}.review_items (id),
  item          TEXT NOT NULL,
  dropped_at    BIGINT NOT NULL,
  depth         INTEGER NOT NULL,
  displaced_by  TEXT NOT NULL
);

CREATE TABLE ${S}.review_verdicts (
  seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id          TEXT NOT NULL UNIQUE,
  item_id     TEXT NOT NULL UNIQUE REFERENCES ${S}.review_items (id),
  run_id      TEXT NOT NULL,
  reviewer    TEXT NOT NULL,
  decision    TEXT NOT NULL CHECK (decision IN ('approve', 'reject')),
  label       TEXT NOT NULL,
  comment     TEXT,
  decided_at  BIGINT NOT NULL
);

CREATE TABLE ${S}.review_mode_changes (
  seq         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  from_mode   TEXT NOT NULL,
  to_mode     TEXT NOT NULL,
  depth       INTEGER NOT NULL,
  changed_at  BIGINT NOT NULL
);

CREATE TABLE ${S}.review_limit_changes (
  seq           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  from_limit    INTEGER NOT NULL,
  to_limit      INTEGER NOT NULL,
  approve_rate  DOUBLE PRECISION NOT NULL,
  verdict_ids   TEXT NOT NULL,
  changed_at    BIGINT NOT NULL
);

CREATE TABLE ${S}.review_run_reports (
  seq            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id         TEXT NOT NULL UNIQUE,
  budget_capped  BOOLEAN NOT NULL,
  reported_at    BIGINT NOT NULL
);

CREATE TABLE ${S}.review_alerts (
  seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  kind            TEXT NOT NULL,
  share           DOUBLE PRECISION NOT NULL,
  threshold       DOUBLE PRECISION NOT NULL,
  window_size     INTEGER NOT NULL,
  capped_run_ids  TEXT NOT NULL,
  raised_at       BIGINT NOT NULL,
  webhook         TEXT
);
`,
};
