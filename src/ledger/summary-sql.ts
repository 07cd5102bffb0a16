import type { LedgerDialect } from './sql-statements.js';

/**
 * How the SQL backends derive a sealed run's summary (docs/ledger.md, "Derived columns") from its
 * records, written once for the seal triggers and for the migration that fills it for runs sealed
 * before: what `summarizeRun` (run-summary.ts) derives in code, which `verifyLedger` compares it with.
 */
export function summarySql(dialect: LedgerDialect) {
  const [runs, records, scores] = [dialect.table('runs'), dialect.table('records'), dialect.table('scores')];
  return {
    /** `run.started`'s guards as JSON text (`[]` when it names none); NULL when record 0 is not `run.started`: the run is not tallied. */
    guards: (runId: string): string =>
      `(SELECT COALESCE(${dialect.jsonText('body', ['data', 'guards'])}, '[]') FROM ${records} WHERE run_id = ${runId} AND seq = 0 AND type = 'run.started')`,
    /** The seal's shadow verdict. */
    shadow: (sealBody: string): string => dialect.jsonText(sealBody, ['data', 'shadow', 'verdict']),
    /** The seal's spend in dollars, when it is a number. */
    costUsd: (sealBody: string): string => dialect.jsonNumber(sealBody, ['data', 'counters', 'costUsd']),
    /** Copies the scored attempts (a candidate hash and a numeric score) of the tallied sealed runs `where` (on `r`, the runs) names. */
    insertScores: (where: string): string => `INSERT INTO ${scores} (run_id, seq, candidate, score)
  SELECT run_id, seq, candidate, score FROM (
    SELECT a.run_id AS run_id, a.seq AS seq, ${dialect.jsonText('a.body', ['data', 'summary', 'candidateHash'])} AS candidate,
      ${dialect.jsonNumber('a.body', ['data', 'summary', 'score'])} AS score
    FROM ${runs} r JOIN ${records} a ON a.run_id = r.run_id AND a.type = 'attempt'
    WHERE ${where} AND r.guards IS NOT NULL
  ) scored WHERE candidate IS NOT NULL AND score IS NOT NULL`,
  };
}
