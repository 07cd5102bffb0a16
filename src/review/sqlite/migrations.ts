import type { ReviewMigrationVersion } from '../migrations.js';
import { PRE_JOURNAL, preJournalColumn, preJournalCountQueries } from '../pre-journal.js';

/**
 * SQLite DDL per schema version. Items keep the whole brief as JSON in `item`; the columns beside it
 * are what the queue orders, filters and locks by.
 */
export const SQLITE_REVIEW_MIGRATIONS: Record<ReviewMigrationVersion, string> = {
  1: `
CREATE TABLE review_state (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  mode           TEXT NOT NULL CHECK (mode IN ('normal', 'degraded')),
  attempt_limit  INTEGER NOT NULL,
  alert_active   INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE review_items (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  run_id       TEXT NOT NULL UNIQUE,
  priority     REAL NOT NULL,
  item         TEXT NOT NULL,
  enqueued_at  INTEGER NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('open', 'decided', 'dropped')),
  claims       INTEGER NOT NULL DEFAULT 0,
  claimed_by   TEXT,
  claimed_at   INTEGER,
  lease_until  INTEGER
);
CREATE INDEX review_items_review_order ON review_items (priority DESC, seq) WHERE state = 'open';
CREATE INDEX review_items_drop_order ON review_items (priority, seq) WHERE state = 'open';

CREATE TABLE review_breaker_log (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  item_id       TEXT NOT NULL REFERENCES review_items (id),
  item          TEXT NOT NULL,
  dropped_at    INTEGER NOT NULL,
  depth         INTEGER NOT NULL,
  displaced_by  TEXT NOT NULL
);

CREATE TABLE review_verdicts (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT NOT NULL UNIQUE,
  item_id     TEXT NOT NULL UNIQUE REFERENCES review_items (id),
  run_id      TEXT NOT NULL,
  reviewer    TEXT NOT NULL,
  decision    TEXT NOT NULL CHECK (decision IN ('approve', 'reject')),
  label       TEXT NOT NULL,
  comment     TEXT,
  decided_at  INTEGER NOT NULL
);

CREATE TABLE review_mode_changes (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  from_mode   TEXT NOT NULL,
  to_mode     TEXT NOT NULL,
  depth       INTEGER NOT NULL,
  changed_at  INTEGER NOT NULL
);

CREATE TABLE review_limit_changes (
  seq           INTEGER PRIMARY KEY AUTOINCREMENT,
  from_limit    INTEGER NOT NULL,
  to_limit      INTEGER NOT NULL,
  approve_rate  REAL NOT NULL,
  verdict_ids   TEXT NOT NULL,
  changed_at    INTEGER NOT NULL
);

CREATE TABLE review_run_reports (
  seq            INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id         TEXT NOT NULL UNIQUE,
  budget_capped  INTEGER NOT NULL,
  reported_at    INTEGER NOT NULL
);

CREATE TABLE review_alerts (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT NOT NULL UNIQUE,
  kind            TEXT NOT NULL,
  share           REAL NOT NULL,
  threshold       REAL NOT NULL,
  window_size     INTEGER NOT NULL,
  capped_run_ids  TEXT NOT NULL,
  raised_at       INTEGER NOT NULL,
  webhook         TEXT
);
`,
  // The journal's head lives in the state row; the triggers keep the chain in order and append-only.
  2: `
ALTER TABLE review_state ADD COLUMN journal_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE review_state ADD COLUMN journal_hash TEXT NOT NULL DEFAULT '${'0'.repeat(64)}';
ALTER TABLE review_state ADD COLUMN settings TEXT;
ALTER TABLE review_state ADD COLUMN settings_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE review_limit_changes ADD COLUMN cause TEXT;

CREATE TABLE review_journal (
  seq        INTEGER PRIMARY KEY,
  type       TEXT NOT NULL,
  body       TEXT NOT NULL,
  prev_hash  TEXT NOT NULL,
  hash       TEXT NOT NULL
);
CREATE TRIGGER review_journal_in_order BEFORE INSERT ON review_journal
WHEN NEW.seq IS NOT (SELECT journal_count FROM review_state WHERE id = 1) OR NEW.prev_hash IS NOT (SELECT journal_hash FROM review_state WHERE id = 1)
BEGIN SELECT RAISE(ABORT, 'redline.review.out_of_order: the journal entry does not follow the last one'); END;
CREATE TRIGGER review_journal_advance AFTER INSERT ON review_journal
BEGIN UPDATE review_state SET journal_count = NEW.seq + 1, journal_hash = NEW.hash WHERE id = 1; END;
CREATE TRIGGER review_journal_refuse_update BEFORE UPDATE ON review_journal
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_journal refused: the journal is append-only'); END;
CREATE TRIGGER review_journal_refuse_delete BEFORE DELETE ON review_journal
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: DELETE on review_journal refused: the journal is append-only'); END;
`,
  // The tables the journal proves are guarded like it: what the queue never does is refused. Items move
  // open → decided | dropped and only an open item changes (claims, then its end); the state row's journal
  // head only advances; an alert only gains its webhook delivery. Every guard is named review_*_refuse_*.
  3: `
${['review_verdicts', 'review_breaker_log', 'review_mode_changes', 'review_limit_changes', 'review_run_reports'].map((table) => refuse(table, 'UPDATE') + refuse(table, 'DELETE')).join('')}
${refuse('review_items', 'DELETE')}
CREATE TRIGGER review_items_refuse_update BEFORE UPDATE ON review_items
WHEN OLD.state <> 'open' OR NEW.seq IS NOT OLD.seq OR NEW.id IS NOT OLD.id OR NEW.run_id IS NOT OLD.run_id OR NEW.priority IS NOT OLD.priority
  OR NEW.item IS NOT OLD.item OR NEW.enqueued_at IS NOT OLD.enqueued_at OR NEW.claims < OLD.claims
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_items refused: an item keeps its brief, and a decided or dropped item is final'); END;

${refuse('review_alerts', 'DELETE')}
CREATE TRIGGER review_alerts_refuse_update BEFORE UPDATE ON review_alerts
WHEN NEW.seq IS NOT OLD.seq OR NEW.id IS NOT OLD.id OR NEW.kind IS NOT OLD.kind OR NEW.share IS NOT OLD.share OR NEW.threshold IS NOT OLD.threshold
  OR NEW.window_size IS NOT OLD.window_size OR NEW.capped_run_ids IS NOT OLD.capped_run_ids OR NEW.raised_at IS NOT OLD.raised_at
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_alerts refused: an alert only gains its webhook delivery'); END;

${refuse('review_state', 'DELETE')}
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON review_state
WHEN NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS NOT OLD.journal_hash) OR NEW.settings_version < OLD.settings_version
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_state refused: the journal head only advances'); END;
`,
  // The counters `stats` and backpressure read, kept in the state row by the change that moves them, so
  // no call counts the items; computed here for a queue that existed before. The state row's guard
  // refuses what the queue never does to them. The breaker log points at the dropped item instead of
  // holding a second copy (the journal's drop entry holds the proof). Indexes serve the live-claim count
  // of `stats` and the verification's look-up of a dropped item's log row.
  4: `
ALTER TABLE review_state ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
ALTER TABLE review_state ADD COLUMN verdicts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE review_state ADD COLUMN approved INTEGER NOT NULL DEFAULT 0;
ALTER TABLE review_state ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE review_state ADD COLUMN alerts INTEGER NOT NULL DEFAULT 0;
UPDATE review_state SET
  depth = (SELECT count(*) FROM review_items WHERE state = 'open'),
  verdicts = (SELECT count(*) FROM review_verdicts),
  approved = (SELECT count(*) FROM review_verdicts WHERE decision = 'approve'),
  dropped = (SELECT count(*) FROM review_breaker_log),
  alerts = (SELECT count(*) FROM review_alerts)
WHERE id = 1;

DROP TRIGGER review_state_refuse_update;
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON review_state
WHEN NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS NOT OLD.journal_hash) OR NEW.settings_version < OLD.settings_version
  OR NEW.depth < 0 OR NEW.verdicts < OLD.verdicts OR NEW.approved < OLD.approved OR NEW.dropped < OLD.dropped OR NEW.alerts < OLD.alerts
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_state refused: the journal head only advances, and so do the counts of verdicts, drops and alerts'); END;

ALTER TABLE review_breaker_log DROP COLUMN item;
CREATE INDEX review_breaker_log_item ON review_breaker_log (item_id);
CREATE INDEX review_items_live_claims ON review_items (lease_until) WHERE state = 'open';
`,
  // A queue created before version 2 holds rows no journal entry records: per table, the rows beyond
  // the journal's entries of their kind, which lead the table (the journal began after them). Fixed
  // here, once: the state row's guard refuses any change of them, and verification accepts exactly
  // that many unjournaled leading rows. A queue born with its journal counts 0 everywhere.
  5: `
${PRE_JOURNAL.map(([table]) => `ALTER TABLE review_state ADD COLUMN ${preJournalColumn(table)} INTEGER NOT NULL DEFAULT 0;`).join('\n')}
UPDATE review_state SET
${preJournalCountQueries()
  .map(([table, count]) => `  ${preJournalColumn(table)} = max(0, (${count}))`)
  .join(',\n')}
WHERE id = 1;

DROP TRIGGER review_state_refuse_update;
CREATE TRIGGER review_state_refuse_update BEFORE UPDATE ON review_state
WHEN NEW.journal_count < OLD.journal_count OR (NEW.journal_count = OLD.journal_count AND NEW.journal_hash IS NOT OLD.journal_hash) OR NEW.settings_version < OLD.settings_version
  OR NEW.depth < 0 OR NEW.verdicts < OLD.verdicts OR NEW.approved < OLD.approved OR NEW.dropped < OLD.dropped OR NEW.alerts < OLD.alerts
  ${PRE_JOURNAL.map(([table]) => `OR NEW.${preJournalColumn(table)} IS NOT OLD.${preJournalColumn(table)}`).join(' ')}
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: UPDATE on review_state refused: the journal head only advances, and so do the counts of verdicts, drops and alerts; the rows before the journal are fixed'); END;
`,
  // Reviewers of the web app: a name and the SHA-256 of their token (the token itself is never stored).
  6: `
CREATE TABLE review_reviewers (
  name        TEXT PRIMARY KEY,
  token_hash  TEXT NOT NULL UNIQUE,
  added_at    INTEGER NOT NULL
);
`,
  // Signed journal entries: the writer's signature beside each entry appended with the signing key (null without).
  7: `
ALTER TABLE review_journal ADD COLUMN signature TEXT;
`,
};

/** A trigger refusing every `operation` on `table`. */
function refuse(table: string, operation: 'UPDATE' | 'DELETE'): string {
  return `
CREATE TRIGGER ${table}_refuse_${operation.toLowerCase()} BEFORE ${operation} ON ${table}
BEGIN SELECT RAISE(ABORT, 'redline.review.append_only: ${operation} on ${table} refused: the queue keeps what the journal proves'); END;
`;
}
