import type { ReviewMigrationVersion } from '../migrations.js';
import { PRE_JOURNAL, preJournalColumn, preJournalCountQueries } from '../pre-journal.js';

/**
 * PostgreSQL DDL per schema version; `S` is the schema, quoted, shared with the ledger. Items keep the
 * whole brief as JSON in `item`; the columns beside it are what the queue orders, filters and locks by.
 * `review_state.depth` counts the open items (and, from version 4, its neighbours the verdicts, approvals,
 * drops and alerts): every change of them locks that row anyway, and reading a count there costs nothing
 * where counting rows under MVCC visits each one.
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
  // The journal's head lives in the state row, which every journal append locks anyway; so does the
  // tuner's window (the newest verdicts' ids and decisions), which a verdict's one statement reads
  // under that lock where its snapshot could miss a verdict committed a moment before.
  2: (S) => `
ALTER TABLE ${S}.review_state
  ADD COLUMN journal_count    BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN journal_hash     TEXT NOT NULL DEFAULT '${'0'.repeat(64)}',
  ADD COLUMN journal_prev     TEXT,
  ADD COLUMN settings         TEXT,
  ADD COLUMN settings_version INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN tuner_ids        TEXT[] NOT NULL DEFAULT '{}',
  ADD COLUMN tuner_approvals  BOOLEAN[] NOT NULL DEFAULT '{}';

ALTER TABLE ${S}.review_limit_changes ADD COLUMN cause TEXT;

CREATE TABLE ${S}.review_journal (
  seq        BIGINT PRIMARY KEY,
  type       TEXT NOT NULL,
  body       TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL
);

CREATE FUNCTION ${S}.review_journal_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'redline.review.append_only: % on review_journal refused: the journal is append-only', TG_OP;
END $$;
CREATE TRIGGER review_journal_refuse_change BEFORE UPDATE OR DELETE ON ${S}.review_journal FOR EACH ROW EXECUTE FUNCTION ${S}.review_journal_refuse_change();
CREATE TRIGGER review_journal_refuse_truncate BEFORE TRUNCATE ON ${S}.review_journal FOR EACH STATEMENT EXECUTE FUNCTION ${S}.review_journal_refuse_change();
`,
  // The tables the journal proves are guarded like it: what the queue never does is refused. Items move
  // open → decided | dropped and only an open item changes (claims, then its end); the state row's journal
  // head only advances; an alert only gains its webhook delivery. The WHEN clauses keep the queue's own
  // updates free of a function call.
  3: (S) => `
CREATE FUNCTION ${S}.review_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'redline.review.append_only: % on % refused: %', TG_OP, TG_TABLE_NAME, TG_ARGV[0];
END $$;
${['review_verdicts', 'review_breaker_log', 'review_mode_changes', 'review_limit_changes', 'review_run_reports'].map((table) => refuse(S, table, 'UPDATE OR DELETE', 'the queue keeps what the journal proves')).join('')}
${refuse(S, 'review_items', 'DELETE', 'the queue keeps what the journal proves')}
CREATE TRIGGER review_items_refuse_update BEFORE UPDATE ON ${S}.review_items FOR EACH ROW
WHEN (OLD.state <> 'open' OR NEW.seq IS DISTINCT FROM OLD.seq OR NEW.id IS DISTINCT FROM OLD.id OR NEW.run_id IS DISTINCT FROM OLD.run_id
  OR NEW.priority IS DISTINCT FROM OLD.priority OR NEW.item IS DISTINCT FROM OLD.item OR NEW.enqueued_at IS DISTINCT FROM OLD.enqueued_at OR NEW.claims < OLD.claims)
EXECUTE FUNCTION ${S}.review_refuse_change('an item keeps its brief, and a decided or dropped item is final');
${refuse(S, 'review_alerts', 'DELETE', 'the queue keeps what the journal proves')}
CREATE TRIGGER review_alerts_refuse_update BEFORE UPDATE ON ${S}.review_alerts FOR EACH ROW
WHEN (NEW.seq IS DISTINCT FROM OLD.seq OR NEW.id IS DISTINCT FROM OLD.id OR NEW.kind IS DISTINCT FROM OLD.kind OR NEW.share IS DISTINCT FROM OLD.share
  OR NEW.threshold IS DISTINCT FROM OLD.threshold OR NEW.window_size IS DISTINCT FROM OLD.window_size OR NEW.capped_run_ids IS DISTINCT FROM OLD.capped_run_ids
  OR NEW.raised_at IS DISTINCT FROM OLD.raised_at)
EXECUTE FUNCTION ${S}.review_refuse_change('an alert only gains its webhook delivery');
${refuse(S, 'review_state', 'DELETE', 'the queue keeps what the journal proves')}
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON ${S}.review_state FOR EACH ROW
WHEN (NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS DISTINCT FROM OLD.journal_hash)
  OR NEW.settings_version < OLD.settings_version)
EXECUTE FUNCTION ${S}.review_refuse_change('the journal head only advances');
`,
  // Beside the depth, the counters `stats` reads, kept in the state row by the statement that moves them
  // (which holds that row's lock already), and computed here for a queue that existed before. The state
  // row's guard refuses what the queue never does to them. The breaker log points at the dropped item
  // instead of holding a second copy (the journal's drop entry holds the proof). Indexes serve the
  // live-claim count of `stats` and the verification's look-up of a dropped item's log row.
  4: (S) => `
ALTER TABLE ${S}.review_state
  ADD COLUMN verdicts  INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN approved  INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN dropped   INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN alerts    INTEGER NOT NULL DEFAULT 0;
UPDATE ${S}.review_state SET
  verdicts = (SELECT count(*) FROM ${S}.review_verdicts),
  approved = (SELECT count(*) FROM ${S}.review_verdicts WHERE decision = 'approve'),
  dropped = (SELECT count(*) FROM ${S}.review_breaker_log),
  alerts = (SELECT count(*) FROM ${S}.review_alerts)
WHERE id = 1;

DROP TRIGGER review_state_refuse_update ON ${S}.review_state;
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON ${S}.review_state FOR EACH ROW
WHEN (NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS DISTINCT FROM OLD.journal_hash)
  OR NEW.settings_version < OLD.settings_version
  OR NEW.verdicts < OLD.verdicts OR NEW.approved < OLD.approved OR NEW.dropped < OLD.dropped OR NEW.alerts < OLD.alerts)
EXECUTE FUNCTION ${S}.review_refuse_change('the journal head only advances, and so do the counts of verdicts, drops and alerts');

ALTER TABLE ${S}.review_breaker_log DROP COLUMN item;
CREATE INDEX review_breaker_log_item ON ${S}.review_breaker_log (item_id);
CREATE INDEX review_items_live_claims ON ${S}.review_items (lease_until) WHERE state = 'open';
`,
  // A queue created before version 2 holds rows no journal entry records: per table, the rows beyond
  // the journal's entries of their kind, which lead the table (the journal began after them). Fixed
  // here, once: the state row's guard refuses any change of them, and verification accepts exactly
  // that many unjournaled leading rows. A queue born with its journal counts 0 everywhere.
  5: (S) => `
ALTER TABLE ${S}.review_state
${PRE_JOURNAL.map(([table]) => `  ADD COLUMN ${preJournalColumn(table)} INTEGER NOT NULL DEFAULT 0`).join(',\n')};
UPDATE ${S}.review_state SET
${preJournalCountQueries(`${S}.`)
  .map(([table, count]) => `  ${preJournalColumn(table)} = GREATEST(0, (${count}))`)
  .join(',\n')}
WHERE id = 1;

DROP TRIGGER review_state_refuse_update ON ${S}.review_state;
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON ${S}.review_state FOR EACH ROW
WHEN (NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS DISTINCT FROM OLD.journal_hash)
  OR NEW.settings_version < OLD.settings_version
  OR NEW.verdicts < OLD.verdicts OR NEW.approved < OLD.approved OR NEW.dropped < OLD.dropped OR NEW.alerts < OLD.alerts
  ${PRE_JOURNAL.map(([table]) => `OR NEW.${preJournalColumn(table)} IS DISTINCT FROM OLD.${preJournalColumn(table)}`).join(' ')})
EXECUTE FUNCTION ${S}.review_refuse_change('the journal head only advances, and so do the counts of verdicts, drops and alerts; the rows before the journal are fixed');
`,
  // Reviewers of the web app: a name and the SHA-256 of their token (the token itself is never stored).
  6: (S) => `
CREATE TABLE ${S}.review_reviewers (
  name        TEXT PRIMARY KEY,
  token_hash  TEXT NOT NULL UNIQUE,
  added_at    BIGINT NOT NULL
);
`,
  // Signed journal entries: the writer's signature beside each entry appended with the signing key (null without).
  7: (S) => `
ALTER TABLE ${S}.review_journal ADD COLUMN signature TEXT;
`,
};

/** Triggers refusing `operations` on `table` row by row, and TRUNCATE of it. */
function refuse(S: string, table: string, operations: string, why: string): string {
  return `
CREATE TRIGGER ${table}_refuse_change BEFORE ${operations} ON ${S}.${table} FOR EACH ROW EXECUTE FUNCTION ${S}.review_refuse_change('${why}');
CREATE TRIGGER ${table}_refuse_truncate BEFORE TRUNCATE ON ${S}.${table} FOR EACH STATEMENT EXECUTE FUNCTION ${S}.review_refuse_change('${why}');
`;
}
