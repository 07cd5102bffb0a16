// Durable append throughput of the SQLite and PostgreSQL ledgers next to a plain insert loop on the same
// database with the same durability, and `verifyLedger` throughput, in the same process run.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { chainRecord } from '../src/ledger/chain.js';
import { GENESIS } from '../src/core/hash-chain.js';
import type { Ledger, LedgerRecord, StoredRecord } from '../src/ledger/ledger.js';
import { PostgresLedger } from '../src/ledger/postgres/postgres-ledger.js';
import type { SqliteDatabase } from '../src/db/sqlite/sqlite-database.js';
import { SqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../src/ledger/verify.js';

export interface BackendResult {
  readonly redlineAppendsPerSec: number;
  readonly plainInsertsPerSec: number;
  /** Median over rounds of redline / plain in the same round; 1 means the ledger costs nothing over a bare insert. */
  readonly ratio: number;
  /** Record bodies verified per second, reading the rows from the database included. */
  readonly verifyMBps: number;
  readonly verifiedRecords: number;
}

export interface LedgerBenchResult {
  /** Appends per run: one `run.started`, the attempts, one `run.sealed`. */
  readonly recordsPerRun: number;
  /** Mean body size of the `attempt` records, in bytes. */
  readonly attemptBytes: number;
  readonly rounds: number;
  readonly sqlite: BackendResult;
  readonly postgres: BackendResult;
}

/** The plain loop's table: the ledger's `records` columns and primary key, no triggers, no foreign key. */
const PLAIN_COLUMNS =
  'run_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY (run_id, seq)';

interface Backend {
  readonly ledger: Ledger;
  insertPlain(row: StoredRecord): unknown;
  close(): Promise<void>;
}

const ATTEMPTS_PER_RUN = 24;
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

const SOURCE = "export const parseHeader = (line: string) => line.split(':', 2).map((part) => part.trim());\n";

/** An `attempt` record as `runMission` writes it: the candidate, three findings, the summary and counters (~1.25 KB). */
function attemptData(runId: string, attempt: number): Record<string, unknown> {
  const candidateHash = sha(`${runId}/${attempt}`);
  return {
    attempt,
    candidate: { files: { 'src/parse/header.ts': SOURCE }, footprint: ['src/parse/header.ts'], hash: candidateHash },
    findings: [
      {
        check: 'typecheck',
        stage: 'fast',
        tier: 'demand',
        status: 'fail',
        reasonCodes: ['ts.2322'],
        message: "Type 'string[]' is not assignable to type 'Header'.",
        location: { file: 'src/parse/header.ts', line: 1 },
      },
      {
        check: 'unit-tests',
        stage: 'promotion',
        tier: 'demand',
        status: 'fail',
        reasonCodes: ['test.assertion'],
        message: 'expected 3 headers, got 2',
        location: { file: 'test/parse/header.test.ts', test: 'folded headers' },
      },
      { check: 'lint', stage: 'fast', tier: 'format', status: 'pass', reasonCodes: [], message: 'no problems' },
    ],
    summary: {
      attempt,
      candidateHash,
      signature: candidateHash.slice(0, 16),
      rejection: 'test.assertion|ts.2322',
      failing: 2,
      failed: true,
      infraError: false,
      progress: attempt % 3 === 0,
    },
    counters: {
      attempts: attempt,
      inputTokens: 4180 * attempt,
      outputTokens: 612 * attempt,
      costUsd: Math.round(143 * attempt) / 10000,
      elapsedMs: 8200 * attempt,
      sinceProgress: attempt % 3,
      failedRounds: attempt,
    },
  };
}

/** One whole run in append order: `run.started`, {@link ATTEMPTS_PER_RUN} attempts, `run.sealed`. */
function runRecords(runId: string): LedgerRecord[] {
  const at = Date.now();
  const records: LedgerRecord[] = [
    {
      runId,
      seq: 0,
      type: 'run.started',
      at,
      data: {
        mission: { id: 'parse-headers', taskType: 'code', goal: 'make the header parser pass its tests' },
        proposer: 'model',
        judge: 'rules',
        guards: ['budget', 'thrash'],
      },
    },
  ];
  for (let attempt = 1; attempt <= ATTEMPTS_PER_RUN; attempt += 1)
    records.push({ runId, seq: attempt, type: 'attempt', at: at + attempt, data: attemptData(runId, attempt) });
  records.push({
    runId,
    seq: ATTEMPTS_PER_RUN + 1,
    type: 'run.sealed',
    at: at + ATTEMPTS_PER_RUN + 1,
    data: {
      outcome: 'failed_with_evidence',
      verification: 'unverified',
      stopReason: 'budget_attempts',
      detail: 'attempt budget spent',
      attempts: ATTEMPTS_PER_RUN,
    },
  });
  return records;
}

/** The same rows as stored by the ledger (same bytes), built up front so the plain loop only inserts. */
function chained(records: readonly LedgerRecord[]): StoredRecord[] {
  let prevHash = GENESIS;
  return records.map((record) => {
    const stored = chainRecord(prevHash, record);
    prevHash = stored.hash;
    return stored;
  });
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** Writes `rows` one awaited call each, in order; returns rows per second. */
async function timed<T>(rows: readonly T[], write: (row: T) => unknown): Promise<number> {
  const started = performance.now();
  for (const row of rows) await write(row);
  return (rows.length * 1000) / (performance.now() - started);
}

async function measure(
  backend: Backend,
  { rounds, secondsPerRound, warmUpRuns }: { rounds: number; secondsPerRound: number; warmUpRuns: number },
): Promise<BackendResult> {
  // Both loops get their rows built before the clock starts: records for the ledger, stored rows for the plain loop.
  const ledgerRows = (runs: number, prefix: string): LedgerRecord[] =>
    Array.from({ length: runs }, (_, run) => runRecords(`${prefix}-${run}`)).flat();
  const plainRows = (runs: number, prefix: string): StoredRecord[] =>
    Array.from({ length: runs }, (_, run) => chained(runRecords(`${prefix}-${run}`))).flat();
  const append = (record: LedgerRecord): Promise<StoredRecord> => backend.ledger.append(record);
  const insert = (row: StoredRecord): unknown => backend.insertPlain(row);
  // Warm-up, which also sizes each round to about `secondsPerRound` at the rate just seen.
  const runsFor = (perSecond: number): number => Math.max(2, Math.round((perSecond * secondsPerRound) / (ATTEMPTS_PER_RUN + 2)));
  const ledgerRuns = runsFor(await timed(ledgerRows(warmUpRuns, 'warm'), append));
  const plainRuns = runsFor(await timed(plainRows(warmUpRuns, 'warm'), insert));
  const redline: number[] = [];
  const plain: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const ledgerRound = ledgerRows(ledgerRuns, `r${round}`);
    const plainRound = plainRows(plainRuns, `r${round}`);
    // Alternating which goes first cancels drift in the disk's flush latency; the ratio pairs each round's two loops.
    if (round % 2 === 0) redline.push(await timed(ledgerRound, append));
    plain.push(await timed(plainRound, insert));
    if (round % 2 === 1) redline.push(await timed(ledgerRound, append));
    ratios.push((redline[round] as number) / (plain[round] as number));
  }
  const verify: number[] = [];
  let verifiedRecords = 0;
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    const totals = await verifyLedger(backend.ledger);
    const seconds = (performance.now() - started) / 1000;
    const [broken] = totals.problems;
    // The whole verdict: a run whose chain holds can still fail on a record that does not parse as its type.
    if (broken !== undefined) throw new Error(`run ${broken.runId} does not verify: ${JSON.stringify(broken)}`);
    verifiedRecords = totals.records;
    verify.push(totals.bytes / 1e6 / seconds);
  }
  return {
    redlineAppendsPerSec: median(redline),
    plainInsertsPerSec: median(plain),
    ratio: median(ratios),
    verifyMBps: median(verify),
    verifiedRecords,
  };
}

/** SQLite in WAL mode with `synchronous = FULL`: every commit is fsynced. Fresh files in a temp folder. */
async function sqliteBackend(dir: string): Promise<Backend> {
  const ledgerDb = new Database(path.join(dir, 'ledger.db'));
  const ledger = await SqliteLedger.open({ database: ledgerDb as unknown as SqliteDatabase, synchronous: 'full' });
  const plainDb = new Database(path.join(dir, 'plain.db'));
  plainDb.pragma('journal_mode = WAL');
  plainDb.pragma('synchronous = FULL');
  for (const db of [ledgerDb, plainDb]) {
    if (db.pragma('journal_mode', { simple: true }) !== 'wal' || db.pragma('synchronous', { simple: true }) !== 2)
      throw new Error('expected WAL with synchronous = FULL');
  }
  plainDb.exec(`CREATE TABLE records (${PLAIN_COLUMNS}) WITHOUT ROWID`);
  const insert = plainDb.prepare('INSERT INTO records (run_id, seq, type, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)');
  return {
    ledger,
    insertPlain: (row) => insert.run(row.runId, row.seq, row.type, row.body, row.prevHash, row.hash),
    close: async () => {
      await ledger.close();
      plainDb.close();
    },
  };
}

/** PostgreSQL with its default `synchronous_commit = on`; the ledger and the plain table share a fresh schema. */
async function postgresBackend(connection: string, schema: string): Promise<Backend> {
  const pool = new pg.Pool({ connectionString: connection, max: 1 });
  try {
    const { rows } = await pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    if (rows[0]?.synchronous_commit !== 'on') throw new Error(`expected synchronous_commit = on, got ${rows[0]?.synchronous_commit}`);
    await pool.query(`CREATE SCHEMA ${schema}`);
    await pool.query(`CREATE TABLE ${schema}.plain_records (${PLAIN_COLUMNS})`);
    const ledger = await PostgresLedger.open({ connection, schema });
    const sql = `INSERT INTO ${schema}.plain_records (run_id, seq, type, body, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6)`;
    return {
      ledger,
      insertPlain: (row) => pool.query(sql, [row.runId, row.seq, row.type, row.body, row.prevHash, row.hash]),
      close: async () => {
        await ledger.close();
        await pool.query(`DROP SCHEMA ${schema} CASCADE`);
        await pool.end();
      },
    };
  } catch (error) {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.end();
    throw error;
  }
}

/**
 * Measures each backend in turn: a warm-up, then `rounds` rounds each holding one redline append loop and
 * one plain insert loop of whole runs (about `secondsPerRound` each, order alternating), then `rounds`
 * passes of `verifyLedger` over every run written. Reports medians.
 */
export async function ledgerBench({
  rounds = 9,
  secondsPerRound = 0.8,
  warmUpRuns = 8,
  postgres = 'postgres://postgres@127.0.0.1:5432/test',
}: { rounds?: number; secondsPerRound?: number; warmUpRuns?: number; postgres?: string } = {}): Promise<LedgerBenchResult> {
  const sample = runRecords('size').filter((record) => record.type === 'attempt');
  const attemptBytes = chained(sample).reduce((sum, row) => sum + Buffer.byteLength(row.body), 0) / sample.length;

  const dir = await mkdtemp(path.join(os.tmpdir(), 'redline-bench-'));
  let sqlite: BackendResult;
  try {
    const backend = await sqliteBackend(dir);
    try {
      sqlite = await measure(backend, { rounds, secondsPerRound, warmUpRuns });
    } finally {
      await backend.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  const backend = await postgresBackend(postgres, `redline_bench_${process.pid}`);
  let postgresResult: BackendResult;
  try {
    postgresResult = await measure(backend, { rounds, secondsPerRound, warmUpRuns });
  } finally {
    await backend.close();
  }
  return { recordsPerRun: ATTEMPTS_PER_RUN + 2, attemptBytes, rounds, sqlite, postgres: postgresResult };
}
