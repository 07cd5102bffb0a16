import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GENESIS } from '../../src/core/hash-chain.js';
import { applyMigrations as applyPostgresMigrations } from '../../src/db/postgres/apply-migrations.js';
import { applyMigrations as applySqliteMigrations } from '../../src/db/sqlite/apply-migrations.js';
import { chainRecord } from '../../src/ledger/chain.js';
import { exportJsonl, importJsonl } from '../../src/ledger/export.js';
import { streamHistory } from '../../src/ledger/history.js';
import type { Ledger, LedgerRecord, StoredRecord } from '../../src/ledger/ledger.js';
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import { POSTGRES_MIGRATIONS } from '../../src/ledger/postgres/migrations.js';
import { postgresDialect } from '../../src/ledger/postgres/postgres-dialect.js';
import { openedRun } from '../../src/ledger/run-row.js';
import { summarizeRun } from '../../src/ledger/run-summary.js';
import { ledgerTally, tallyRuns } from '../../src/ledger/run-tally.js';
import { ledgerSql } from '../../src/ledger/sql-statements.js';
import { recordValues, runValues } from '../../src/ledger/sql-rows.js';
import { SQLITE_MIGRATIONS } from '../../src/ledger/sqlite/migrations.js';
import { SQLITE_DIALECT } from '../../src/ledger/sqlite/sqlite-dialect.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { openLedgerAt, sqlBackends, withLedger, writeDirectly, type SqlBackend } from './backends.js';
import { appendRuns, DAY, DAY_0_RUNS, HOSTILE, rounded, runRecords, sealData, STILL_RUNNING, T0, type TallyRun } from './tally-runs.js';

// What the SQL ledgers derive at the seal for the reports' tally (docs/ledger.md, "Derived columns"): the
// same as the records give, filled by the migration for runs sealed before it, by imports, and checked by
// verify, which a tampered summary does not fool.

/** Runs of every shape the tally reads: scores that repeat (integers too), no guards, no shadow, no spend, one still running. */
const RUNS: readonly TallyRun[] = [
  ...DAY_0_RUNS,
  {
    runId: 'd',
    day: 3,
    scores: [
      ['c3', 1],
      ['c3', 0],
      ['c4', undefined],
    ],
    seal: { outcome: 'failed_with_evidence', stopReason: 'x', costUsd: 1, shadow: 'fail' },
  },
  { runId: 'e', day: 9, guards: [], scores: [['c5', 0.1 + 0.2]], seal: { outcome: 'complete_noop', stopReason: 'baseline_passed' } },
  STILL_RUNNING,
];

/** The records of the runs, chained as the ledger chains them. */
function chained(): StoredRecord[][] {
  return RUNS.map((run) => {
    let prevHash = GENESIS;
    return runRecords(run).map((record) => {
      const stored = chainRecord(prevHash, record);
      prevHash = stored.hash;
      return stored;
    });
  });
}

const record = (ledger: Ledger): Promise<void> => appendRuns(ledger, RUNS);

const BEFORE = MIGRATIONS.filter(({ version }) => version <= 6);

/** Writes the runs into `location` as redline did at schema version 6, before the ledger derived summaries. */
async function writeAtVersion6(backend: SqlBackend, location: string): Promise<void> {
  const runs = chained();
  const opened = (records: readonly StoredRecord[]) => {
    const first = records[0] as StoredRecord;
    return openedRun(JSON.parse(first.body) as LedgerRecord, first);
  };
  await writeDirectly(backend.name, location, {
    sqlite(db) {
      applySqliteMigrations(db, { table: 'redline_migrations', migrations: BEFORE, sql: (v) => SQLITE_MIGRATIONS[v as 6] });
      const sql = ledgerSql(SQLITE_DIALECT);
      for (const records of runs) {
        db.prepare(sql.insertRun).run(...runValues(opened(records)));
        for (const row of records) db.prepare(sql.insertRecord).run(...recordValues(row));
      }
    },
    async postgres(client, S) {
      await applyPostgresMigrations(client, location, S, {
        table: 'redline_migrations',
        migrations: BEFORE,
        sql: (v, quoted) => POSTGRES_MIGRATIONS[v as 6](quoted),
      });
      const sql = ledgerSql(postgresDialect(S));
      for (const records of runs) {
        await client.query(sql.insertRun, runValues(opened(records)));
        for (const row of records) await client.query(sql.insertRecord, recordValues(row));
      }
    },
  });
}

/** Each run's summary as streamed, next to what its records give. */
async function summaries(ledger: Ledger) {
  const pairs = [];
  for await (const { run, records, summary } of streamHistory(ledger, { summaries: true }))
    pairs.push({ runId: run.runId, summary, derived: summarizeRun(run, records) });
  return pairs;
}

describe('the summary a SQL ledger derives at the seal', () => {
  for (const backend of sqlBackends) {
    it(`is what the records give, and an import derives it again (${backend.name})`, () =>
      withLedger(
        () => backend.open(),
        async ({ ledger }) => {
          await record(ledger);
          const pairs = await summaries(ledger);
          assert.equal(pairs.length, RUNS.length);
          for (const { runId, summary, derived } of pairs) assert.deepEqual(summary, derived, runId);
          assert.deepEqual(
            pairs.map(({ summary }) => summary?.guards),
            [['budget', 'threshold'], ['budget', 'threshold'], [HOSTILE], [], [], undefined],
          );
          assert.equal((await verifyLedger(ledger)).ok, true);
          // Export, then import into a fresh ledger of the same backend: the import's seals derive it too.
          const lines: string[] = [];
          for await (const line of exportJsonl(ledger)) lines.push(line);
          await withLedger(
            () => backend.open(),
            async ({ ledger: copy }) => {
              await importJsonl(copy, lines);
              assert.deepEqual(await summaries(copy), pairs);
              assert.deepEqual(rounded(await ledgerTally(copy)), rounded(await ledgerTally(ledger)));
              assert.equal((await verifyLedger(copy)).ok, true);
            },
          );
        },
      ));

    it(`is filled by the migration for runs sealed before it: the same tally (${backend.name})`, async () => {
      const storage = await backend.storage();
      try {
        await writeAtVersion6(backend, storage.location);
        const ledger = await openLedgerAt(backend.name, storage.location);
        try {
          const tally = await ledgerTally(ledger);
          assert.deepEqual(rounded(tally), rounded(await tallyRuns(streamHistory(ledger))));
          assert.equal(
            tally.groups.reduce((sum, { runs }) => sum + runs, 0),
            5,
          );
          assert.deepEqual(rounded({ groups: [], spread: tally.spread }).spread, { candidates: 2, scores: 4, m2: 0.52 });
          for (const { runId, summary, derived } of await summaries(ledger)) assert.deepEqual(summary, derived, runId);
          assert.equal((await verifyLedger(ledger)).ok, true);
          // Runs sealed after the migration are derived at their seal, alongside.
          await ledger.append({
            runId: 'f',
            seq: 2,
            type: 'run.sealed',
            at: T0 + 9 * DAY + 2,
            data: sealData({ outcome: 'blocked', stopReason: 'thrashing' }),
          });
          assert.deepEqual(rounded(await ledgerTally(ledger)), rounded(await tallyRuns(streamHistory(ledger))));
        } finally {
          await ledger.close();
        }
      } finally {
        await storage.dispose();
      }
    });

    it(`tampered, changes no chain verdict, and verify names it (${backend.name})`, () =>
      withLedger(
        () => backend.open(),
        async ({ ledger, raw }) => {
          await record(ledger);
          const before = await ledgerTally(ledger);
          await raw.disableGuards();
          await raw.updateRun('a', 'shadow', 'fail');
          await raw.updateScore('d', 1, 0.5);
          await raw.updateRun('c', 'outcome', 'complete');
          // The tally reads the derived columns: the edit shows there, and verify is what says so.
          assert.notDeepEqual(rounded(await ledgerTally(ledger, { missionId: 'm' })), rounded(before));
          const result = await verifyLedger(ledger);
          assert.equal(result.ok, false);
          assert.deepEqual(
            result.problems.map(({ runId, firstBad, signatureProblem, summaryProblem }) => ({
              runId,
              firstBad,
              signatureProblem,
              summaryProblem,
            })),
            [
              {
                runId: 'a',
                firstBad: undefined,
                signatureProblem: undefined,
                summaryProblem: `the summary's shadow verdict is "fail", its seal says "pass"`,
              },
              {
                runId: 'c',
                firstBad: undefined,
                signatureProblem: undefined,
                summaryProblem: `the run row's outcome is "complete", its records say "blocked"`,
              },
              {
                runId: 'd',
                firstBad: undefined,
                signatureProblem: undefined,
                summaryProblem: `the summary's scores are [{"seq":1,"candidate":"c3","score":0.5},{"seq":2,"candidate":"c3","score":0}], its attempts say [{"seq":1,"candidate":"c3","score":1},{"seq":2,"candidate":"c3","score":0}]`,
              },
            ],
          );
          await raw.updateRun('e', 'guards', '["budget"]');
          await raw.updateRun('b', 'cost_usd', 7);
          const more = (await verifyLedger(ledger)).problems.map(({ runId, summaryProblem }) => [runId, summaryProblem]);
          assert.deepEqual(more.slice(0, 2), [
            ['a', `the summary's shadow verdict is "fail", its seal says "pass"`],
            ['b', `the summary's spend is 7, its seal says 0.5`],
          ]);
          assert.deepEqual(more.at(-1), ['e', `the summary's guards are ["budget"], its records say []`]);
        },
      ));
  }
});
