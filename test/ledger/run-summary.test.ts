import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { GENESIS } from '../../src/core/hash-chain.js';
import { applyMigrations as applyPostgresMigrations } from '../../src/db/postgres/apply-migrations.js';
import { applyMigrations as applySqliteMigrations } from '../../src/db/sqlite/apply-migrations.js';
import { openSqliteFile } from '../../src/db/sqlite/sqlite-database.js';
import { chainRecord } from '../../src/ledger/chain.js';
import { exportJsonl, importJsonl } from '../../src/ledger/export.js';
import { streamHistory } from '../../src/ledger/history.js';
import type { Ledger, LedgerRecord, LedgerTally, StoredRecord } from '../../src/ledger/ledger.js';
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
import { openLedgerAt, POSTGRES_URL, sqlBackends, withLedger, type SqlBackend } from './backends.js';

// What the SQL ledgers derive at the seal for the reports' tally (docs/ledger.md, "Derived columns"): the
// same as the records give, filled by the migration for runs sealed before it, by imports, and checked by
// verify, which a tampered summary does not fool.

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-02T00:00:00Z');
/** Markup, a quote, a right-to-left override and a zero-width space: text a ledger may hold. */
const HOSTILE = `x <b>"'</b> \u202eevil\u202c \u200b`;

const counters = (costUsd: number) => ({
  attempts: 1,
  inputTokens: 10,
  outputTokens: 5,
  costUsd,
  elapsedMs: 1_000,
  sinceProgress: 0,
  failedRounds: 0,
});

const attempt = (attempt: number, candidateHash: string, score?: number) => ({
  type: 'attempt' as const,
  data: {
    attempt,
    summary: {
      attempt,
      candidateHash,
      signature: `s${attempt}`,
      rejection: '',
      ...(score === undefined ? {} : { score }),
      failing: 0,
      failed: false,
      infraError: false,
      progress: true,
    },
    counters: counters(0),
  },
});

const seal = (outcome: string, stopReason: string, costUsd?: number, shadow?: string) => ({
  type: 'run.sealed' as const,
  data: {
    outcome,
    verification: 'verified',
    stopReason,
    ...(costUsd === undefined ? {} : { counters: counters(costUsd) }),
    ...(shadow === undefined ? {} : { shadow: { verdict: shadow, findings: [] } }),
  },
});

const started = (missionId: string, guards?: readonly string[]) => ({
  type: 'run.started' as const,
  data: { mission: { id: missionId, taskType: 'fix' }, ...(guards === undefined ? {} : { guards }) },
});

/** Runs of every shape the tally reads: scores that repeat (integers too), no guards, no shadow, no spend, one still running. */
const RUNS: readonly { readonly runId: string; readonly day: number; readonly steps: readonly { type: string; data: object }[] }[] = [
  {
    runId: 'a',
    day: 0,
    steps: [
      started('m', ['budget', 'threshold']),
      attempt(1, 'c1', 0.4),
      attempt(2, 'c2', 0.8),
      seal('complete', 'threshold', 0.25, 'pass'),
    ],
  },
  { runId: 'b', day: 0, steps: [started('m', ['budget', 'threshold']), attempt(1, 'c1', 0.6), seal('complete', 'threshold', 0.5, 'pass')] },
  { runId: 'c', day: 0, steps: [started(HOSTILE, [HOSTILE]), seal('blocked', HOSTILE, 0)] },
  {
    runId: 'd',
    day: 3,
    steps: [started('m'), attempt(1, 'c3', 1), attempt(2, 'c3', 0), attempt(3, 'c4'), seal('failed_with_evidence', 'x', 1, 'fail')],
  },
  { runId: 'e', day: 9, steps: [started('m', []), attempt(1, 'c5', 0.1 + 0.2), seal('complete_noop', 'baseline_passed')] },
  { runId: 'f', day: 9, steps: [started('m'), attempt(1, 'c1', 0.2)] },
];

/** The records of the runs, chained as the ledger chains them. */
function chained(): StoredRecord[][] {
  return RUNS.map(({ runId, day, steps }) => {
    let prevHash = GENESIS;
    return steps.map(({ type, data }, seq) => {
      const stored = chainRecord(prevHash, { runId, seq, type, at: T0 + day * DAY + seq, data } as LedgerRecord);
      prevHash = stored.hash;
      return stored;
    });
  });
}

async function record(ledger: Ledger): Promise<void> {
  for (const { runId, day, steps } of RUNS)
    for (const [seq, { type, data }] of steps.entries())
      await ledger.append({ runId, seq, type, at: T0 + day * DAY + seq, data } as LedgerRecord);
}

const BEFORE = MIGRATIONS.filter(({ version }) => version <= 6);

/** Writes the runs into `location` as redline did at schema version 6, before the ledger derived summaries. */
async function writeAtVersion6(backend: SqlBackend, location: string): Promise<void> {
  const runs = chained();
  const opened = (records: readonly StoredRecord[]) => {
    const first = records[0] as StoredRecord;
    return openedRun(JSON.parse(first.body) as LedgerRecord, first);
  };
  if (backend.name === 'sqlite') {
    const db = await openSqliteFile(location);
    try {
      applySqliteMigrations(db, { table: 'redline_migrations', migrations: BEFORE, sql: (v) => SQLITE_MIGRATIONS[v as 6] });
      const sql = ledgerSql(SQLITE_DIALECT);
      for (const records of runs) {
        db.prepare(sql.insertRun).run(...runValues(opened(records)));
        for (const row of records) db.prepare(sql.insertRecord).run(...recordValues(row));
      }
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const S = `"${location}"`;
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
  } finally {
    await client.end();
  }
}

/** Sums to 9 places and groups in one order: the stores sum in their own order. */
const rounded = ({ groups, spread }: LedgerTally) => ({
  groups: groups
    .map((group) => ({ ...group, costUsd: Number(group.costUsd.toFixed(9)) }))
    .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
  spread: { ...spread, m2: Number(spread.m2.toFixed(9)) },
});

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
          await ledger.append({ runId: 'f', seq: 2, type: 'run.sealed', at: T0 + 9 * DAY + 2, data: seal('blocked', 'thrashing').data });
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
