import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Ledger, LedgerRecord, StoredRecord } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { recoverRuns, type Recovery } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission, type Mission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { openLedgerAt, POSTGRES_URL, sqlBackends, type SqlBackendName } from '../ledger/backends.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { wrapLedger } from '../helpers/ledgers.js';

// The race of issue 10 item 4: a writer killed with SIGKILL can have its last statement still running in the
// database, which commits after recovery read the run. Here that statement is a transaction held open on
// another connection (it inserts the record the writer would have appended next) and committed at the last
// moment it could: when recovery makes its first write, after every read it based that write on.

const VALUES = [{ nom: 1 }, { name: 'a' }];

/**
 * A mission whose run ends at attempt 2, where its only check (a format check) passes: blocked /
 * no_demand_signal. With `declared`, its replay proposer lets recovery resume it.
 */
async function mission(declared: boolean): Promise<Mission> {
  const dir = await tempWorkspace({ 'replay.json': JSON.stringify(VALUES.map((value) => ({ value }))) });
  return defineMission(
    {
      id: declared ? 'resumable' : 'library',
      goal: 'shape a value',
      budgets: { maxAttempts: 2 },
      stopPolicy: { guards: [] },
      checks: [{ name: 'shape', kind: 'json-schema', schema: { type: 'object', required: ['name'] } }],
      ...(declared ? { proposer: { kind: 'replay', file: 'replay.json' } } : {}),
    },
    { baseDir: dir },
  );
}

/** The rows an uninterrupted run of `target` stores: run.started, attempt, decision, attempt, decision, run.sealed (no_demand_signal). */
async function reference(target: Mission, runId: string): Promise<readonly StoredRecord[]> {
  const ledger = new MemoryLedger();
  let attempt = 0;
  await runMission({
    mission: target,
    ledger,
    proposer: functionProposer(() => ({ value: VALUES[attempt++] })),
    _internal: { generateId: () => runId },
  });
  return ledger.stored(runId);
}

/** A transaction on its own connection that has inserted `row` and not committed yet. */
async function heldOpen(
  name: SqlBackendName,
  location: string,
  row: StoredRecord,
): Promise<{ commit(): Promise<void>; close(): Promise<void> }> {
  const values = [row.runId, row.seq, row.type, row.body, row.prevHash, row.hash];
  if (name === 'sqlite') {
    const db = new Database(location);
    db.exec('BEGIN IMMEDIATE');
    db.prepare('INSERT INTO records (run_id, seq, type, body, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?)').run(...values);
    return { commit: async () => void db.exec('COMMIT'), close: async () => void db.close() };
  }
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO "${location}".records (run_id, seq, type, body, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6)`,
    values,
  );
  return { commit: async () => void (await client.query('COMMIT')), close: () => client.end() };
}

/** `inner`, but `beforeFirstWrite` runs once, just before the first append goes through. */
function committingLate(inner: Ledger, beforeFirstWrite: () => Promise<void>): Ledger {
  let pending: (() => Promise<void>) | undefined = beforeFirstWrite;
  return wrapLedger(inner, {
    append: async (record) => {
      const hook = pending;
      pending = undefined;
      await hook?.();
      return inner.append(record);
    },
  });
}

/**
 * Stores the first `crashAt` rows of a run as its writer (this process, so a dead one to recovery) did,
 * holds row `crashAt` open on another connection, and recovers through a ledger that commits it just
 * before recovery writes. Returns what recovery reported and the run's records after it.
 */
async function raceRecovery(
  name: SqlBackendName,
  target: Mission,
  crashAt: number,
): Promise<{ recovery: Recovery; reference: readonly StoredRecord[]; after: readonly LedgerRecord[] }> {
  const runId = `race-${target.id}`;
  const rows = await reference(target, runId);
  const storage = await sqlBackends.find((backend) => backend.name === name)!.storage();
  try {
    const ledger = await openLedgerAt(name, storage.location);
    try {
      for (const row of rows.slice(0, crashAt)) await ledger.append(JSON.parse(row.body) as LedgerRecord);
      const writer = await heldOpen(name, storage.location, rows[crashAt] as StoredRecord);
      let recoveries: Recovery[];
      try {
        recoveries = await recoverRuns({ ledger: committingLate(ledger, () => writer.commit()) });
      } finally {
        await writer.close();
      }
      assert.equal(recoveries.length, 1, JSON.stringify(recoveries));
      assert.deepEqual((await verifyLedger(ledger)).problems, []);
      assert.deepEqual(await ledger.runs({ unsealed: true }), []);
      return { recovery: recoveries[0] as Recovery, reference: rows, after: await ledger.records(runId) };
    } finally {
      await ledger.close();
    }
  } finally {
    await storage.dispose();
  }
}

for (const { name } of sqlBackends) {
  describe(`recovery racing a late commit of the dead writer (${name})`, () => {
    it('seals crashed after the late record instead of failing out of order', async () => {
      const { recovery, after } = await raceRecovery(name, await mission(false), 3);
      assert.equal(recovery.action, 'sealed_crashed', JSON.stringify(recovery));
      assert.deepEqual(
        after.map((record) => record.type),
        ['run.started', 'attempt', 'decision', 'attempt', 'run.sealed'],
      );
      assert.match(String(after.at(-1)?.data.detail), /stopped after record 3;/);
      assert.equal(recovery.detail, 'its proposer cannot be rebuilt (it was not declared in the mission)');
    });

    it('resumes from the late record instead of sealing crashed', async () => {
      const { recovery, reference: rows, after } = await raceRecovery(name, await mission(true), 3);
      assert.equal(recovery.action, 'resumed', JSON.stringify(recovery));
      assert.equal(recovery.detail, 'blocked / no_demand_signal');
      assert.deepEqual(
        after.map((record) => record.type),
        ['run.started', 'attempt', 'decision', 'attempt', 'run.resumed', 'decision', 'run.sealed'],
      );
      assert.equal(after[3]?.data.attempt, 2);
      assert.equal(rows.length, 6);
    });

    it('reports a run another process sealed meanwhile as already sealed, with its outcome', async () => {
      const { recovery, after } = await raceRecovery(name, await mission(true), 5);
      assert.equal(recovery.action, 'already_sealed', JSON.stringify(recovery));
      assert.equal(recovery.detail, 'blocked / no_demand_signal by another process');
      assert.deepEqual(
        after.map((record) => record.type),
        ['run.started', 'attempt', 'decision', 'attempt', 'decision', 'run.sealed'],
      );
    });
  });
}
