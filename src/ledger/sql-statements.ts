import type { RunCondition, RunField, RunQuery } from './run-query.js';

/**
 * What the ledger's SQL spells differently on SQLite and PostgreSQL, as a kysely dialect does for its
 * queries; every statement is written once, in {@link ledgerSql}.
 */
export interface LedgerDialect {
  /** A ledger table's name as the statements write it: bare (SQLite) or in its schema (PostgreSQL). */
  table(name: 'runs' | 'records' | 'scores'): string;
  /** The n-th parameter, from 1: `?` (SQLite) or `$n` (PostgreSQL). */
  param(n: number): string;
  /** The condition that a run is sealed (or not), as the `sealed` column stores it. */
  sealed(value: boolean): string;
  /** The condition that `run_id` is one of the ids passed as parameter `param` (see {@link LedgerDialect.ids}). */
  runIdIn(param: string): string;
  /** Run ids as the value of the parameter {@link LedgerDialect.runIdIn} names. */
  ids(runIds: readonly string[]): unknown;
  /** The text at `path` in the JSON text of `column` (a string as itself, an array or object as JSON); null when absent. */
  jsonText(column: string, path: readonly string[]): string;
  /** The number at `path` in the JSON text of `column`, as a float; null when absent or not a number. */
  jsonNumber(column: string, path: readonly string[]): string;
}

/** A statement and its parameters. */
export interface SqlQuery {
  readonly sql: string;
  readonly params: readonly unknown[];
}

const COLUMNS: Record<RunField | 'startedAt', string> = {
  sealed: 'sealed',
  taskType: 'task_type',
  startedAt: 'started_at',
  runId: 'run_id',
  missionId: 'mission_id',
  planHash: 'plan_hash',
  resolves: 'resolves',
  outcome: 'outcome',
};

const DAY_MS = 86_400_000;

/** The conditions of `where` as SQL on the `runs` columns, and the parameters they take (more may follow). */
function conditionsOf(dialect: LedgerDialect, where: readonly RunCondition[]) {
  const values: unknown[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return dialect.param(values.length);
  };
  const conditions = where.map((condition) =>
    condition.field === 'sealed'
      ? dialect.sealed(condition.value === true)
      : `${COLUMNS[condition.field]} ${condition.op} ${param(condition.value)}`,
  );
  return { conditions, param, values };
}

/**
 * The ledger's statements in a dialect. Parameters follow `runValues` and `recordValues` (sql-rows.ts);
 * the triggers advance a run's row as its records go in, so a new run's row starts empty.
 */
export function ledgerSql(dialect: LedgerDialect) {
  const [runs, records, scores] = [dialect.table('runs'), dialect.table('records'), dialect.table('scores')];
  /** The sealed runs of `where` that the tally counts: those whose first record is `run.started` (summary-sql.ts). */
  const tallied = (where: readonly RunCondition[]) => {
    const { conditions, values } = conditionsOf(dialect, where);
    return { filter: [dialect.sealed(true), 'guards IS NOT NULL', ...conditions].join(' AND '), values };
  };
  const params = (count: number): string => Array.from({ length: count }, (_, index) => dialect.param(index + 1)).join(', ');
  return {
    insertRun: `INSERT INTO ${runs} (run_id, mission_id, task_type, started_at, last_hash, plan_hash, resolves, record_count) VALUES (${params(7)}, 0)`,
    insertRecord: `INSERT INTO ${records} (run_id, seq, type, body, prev_hash, hash) VALUES (${params(6)})`,
    selectRun: `SELECT * FROM ${runs} WHERE run_id = ${dialect.param(1)}`,
    selectRecords: `SELECT * FROM ${records} WHERE run_id = ${dialect.param(1)} ORDER BY seq`,
    latestSealed: `SELECT * FROM ${runs} WHERE mission_id = ${dialect.param(1)} AND plan_hash = ${dialect.param(2)} AND ${dialect.sealed(true)} ORDER BY started_at DESC, run_id DESC LIMIT 1`,
    pageRecords: `SELECT * FROM ${records} WHERE ${dialect.runIdIn(dialect.param(1))} ORDER BY run_id, seq`,
    /** Each named run's newest record: one `(run_id, seq)` key look-up per run. */
    lastRecords: `SELECT * FROM ${records} WHERE (run_id, seq) IN (SELECT run_id, record_count - 1 FROM ${runs} WHERE ${dialect.runIdIn(dialect.param(1))})`,
    /**
     * The runs of a query. A page resumes by the row comparison `(started_at, run_id) > after`, the same
     * pair as the order, so pages walk the `runs_in_start_order` index (or a filter's own
     * `(…, started_at, run_id)` index) and no run is skipped or read twice; newest first walks it backwards.
     */
    runs({ where, after, limit, newestFirst = false }: RunQuery): SqlQuery {
      const { conditions, param, values } = conditionsOf(dialect, where);
      if (after !== undefined)
        conditions.push(`(started_at, run_id) ${newestFirst ? '<' : '>'} (${param(after.startedAt)}, ${param(after.runId)})`);
      const filter = conditions.length === 0 ? '' : ` WHERE ${conditions.join(' AND ')}`;
      const order = newestFirst ? 'started_at DESC, run_id DESC' : 'started_at, run_id';
      const page = limit === undefined ? '' : ` LIMIT ${param(limit)}`;
      return { sql: `SELECT * FROM ${runs}${filter} ORDER BY ${order}${page}`, params: values };
    },
    /** The summaries' scored attempts of the named runs (`verifyLedger` compares them with the records). */
    pageScores: `SELECT run_id, seq, candidate, score FROM ${scores} WHERE ${dialect.runIdIn(dialect.param(1))} ORDER BY run_id, seq`,
    /**
     * The tallied runs of `where` counted by start day, outcome, stop reason, guards and shadow verdict, with
     * their spend: columns the seal filled (docs/ledger.md, "Derived columns"), no record read.
     */
    tallyGroups(where: readonly RunCondition[]): SqlQuery {
      const { filter, values } = tallied(where);
      const sql = `SELECT started_at / ${DAY_MS} AS day, outcome, stop_reason, guards, shadow, COUNT(*) AS runs, SUM(COALESCE(cost_usd, 0)) AS cost_usd
FROM ${runs} WHERE ${filter} GROUP BY 1, 2, 3, 4, 5`;
      return { sql, params: values };
    },
    /** How many sealed runs `where` matches. */
    sealedCount(where: readonly RunCondition[]): SqlQuery {
      const { conditions, values } = conditionsOf(dialect, where);
      return { sql: `SELECT COUNT(*) AS n FROM ${runs} WHERE ${[dialect.sealed(true), ...conditions].join(' AND ')}`, params: values };
    },
    /**
     * The spread of the judge's scores of candidates scored more than once in the tallied runs of `where`:
     * per candidate Σs² − (Σs)²/n (its squared deviations), pooled. `scores` holds only tallied runs' attempts,
     * so the whole ledger reads that table alone, in candidate order through its index.
     */
    scoreSpread(where: readonly RunCondition[]): SqlQuery {
      const { filter, values } = tallied(where);
      const scored =
        where.length === 0
          ? scores
          : `(SELECT s.candidate, s.score FROM (SELECT run_id FROM ${runs} WHERE ${filter}) r JOIN ${scores} s ON s.run_id = r.run_id)`;
      const sql = `SELECT COUNT(*) AS candidates, COALESCE(SUM(n), 0) AS scores, COALESCE(SUM(m2), 0) AS m2 FROM (
  SELECT COUNT(*) AS n, SUM(score * score) - SUM(score) * SUM(score) / COUNT(*) AS m2
  FROM ${scored} scored GROUP BY candidate HAVING COUNT(*) > 1
) repeated`;
      return { sql, params: values };
    },
  };
}

/** The statements of one dialect. */
export type LedgerSql = ReturnType<typeof ledgerSql>;
