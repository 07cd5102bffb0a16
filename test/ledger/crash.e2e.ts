import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Ledger } from '../../src/ledger/ledger.js';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { sfc32 } from '../../src/study/prng.js';
import { tempWorkspace } from '../helpers/workspace.js';

// Needs the build (`npm test` builds first): the writer is a plain node process importing dist/.
const WRITER = path.resolve(import.meta.dirname, '../fixtures/ledger/writer.mjs');
// 50 kills per backend by default (`npm test`, `.ci/run`); a soak: REDLINE_CRASH_KILLS=500 (and
// REDLINE_CRASH_SEED to vary, or to replay, the kill points: the same seed kills after the same records).
const KILLS = positiveFromEnv('REDLINE_CRASH_KILLS', 50);
const SEED = positiveFromEnv('REDLINE_CRASH_SEED', 1);
/**
 * Ledgers one writer writes to side by side: one SIGKILL is a kill for each, at its own point of the work.
 * Starting a writer (loading redline) costs far more CPU than a kill and its recovery, so one start serves five kills.
 */
const LEDGERS = 5;
const ROUNDS = Math.ceil(KILLS / LEDGERS);
/** The most records a writer stores to a ledger before its kill: a round of its two runs, written side by side (14 and 20 records). */
const MAX_RECORDS = 40;
/** Writers loading and opening the ledgers while the current one writes and is recovered. */
const WRITERS_AHEAD = 2;
// Durability across a machine crash is not under test (the writer dies, not the server nor the kernel, and
// what it committed stays in the page cache): SQLite skips fsync, PostgreSQL commits skip the WAL flush.
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test?options=-c%20synchronous_commit%3Doff';

function positiveFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`Expected ${name} to be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

type Writer = ChildProcessByStdio<Writable, Readable, Readable>;

/** Starts a writer and waits until it has loaded and opened its ledgers ("waiting"); it writes nothing yet. */
async function startWriter(args: readonly string[]): Promise<{ child: Writer; stderr: () => string }> {
  const child = spawn(process.execPath, [WRITER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [waiting] = (await Promise.race([once(child.stdout, 'data'), once(child, 'exit')])) as [Buffer | number];
  assert.ok(Buffer.isBuffer(waiting) && waiting.toString().startsWith('waiting'), `the writer exited before it was ready: ${stderr}`);
  return { child, stderr: () => stderr };
}

/**
 * Lets a started writer append to its ledgers and kills it with SIGKILL once the ledger with the highest
 * target has reported that many records; the writer starts each other ledger when the first lacks that
 * ledger's target, so each has about its own target at the kill. Every ledger goes on writing meanwhile, so
 * the kill lands at an arbitrary point of each one's work (the same way however loaded the machine is: the
 * kill points are counted in records, not in milliseconds). Returns the records each ledger reported.
 */
async function killAfter({ child, stderr }: { child: Writer; stderr: () => string }, targets: readonly number[]): Promise<number[]> {
  const seen = targets.map(() => 0);
  const goal = Math.max(...targets);
  const first = targets.indexOf(goal);
  const reached = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      for (const mark of chunk) seen[mark - 97] = (seen[mark - 97] ?? Number.NaN) + 1;
      if ((seen[first] as number) >= goal) resolve();
    });
    child.once('exit', () => reject(new Error(`the writer exited after ${seen.join(', ')} of ${targets.join(', ')} records: ${stderr()}`)));
  });
  child.stdin.write(`${targets.join(' ')}\n`);
  await reached;
  child.kill('SIGKILL');
  const [, signal] =
    child.exitCode === null && child.signalCode === null
      ? ((await once(child, 'exit')) as [number | null, string | null])
      : [child.exitCode, child.signalCode];
  assert.equal(signal, 'SIGKILL', `the writer ended on its own: ${stderr()}`);
  assert.ok(
    seen.every((count) => Number.isInteger(count)),
    `the writer reported records of a ledger it was not given: ${seen.join(', ')}`,
  );
  return seen;
}

/** Works on every ledger at once (each is its own storage and scratch directory); throws the first failure once all have ended. */
async function eachOf(ledgers: readonly Ledger[], work: (ledger: Ledger, number: number) => Promise<void>): Promise<void> {
  const failed = (await Promise.allSettled(ledgers.map(work))).find((outcome) => outcome.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

interface Backend {
  /** Where ledger N is: a SQLite file or a PostgreSQL schema. */
  readonly locations: readonly string[];
  open(location: string): Promise<Ledger>;
  /** The writer's connection argument; `tag` names its connections (PostgreSQL: `application_name`). */
  connection(tag: string): string;
  /**
   * Returns once nothing the killed writer sent can still commit. A killed client does not stop a statement
   * the server is running for it: on PostgreSQL, that statement's backend ends only when it finds the
   * connection closed. SQLite runs in the writer's process, so its writes die with it.
   */
  settled(tag: string): Promise<void>;
}

async function crashRecoverVerify(
  backend: Backend,
  { scratchDir, replay }: { scratchDir: string; replay: string },
): Promise<{ resumed: number; sealedCrashed: number; alreadySealed: number; runs: number; records: number }> {
  const random = sfc32(SEED);
  let resumed = 0;
  let sealedCrashed = 0;
  let alreadySealed = 0;
  let records = 0;
  // A sealed run accepts nothing more (the database refuses it), so each run is verified until it is sealed.
  const verifiedSealed = new Set<string>();
  const verifyUnsealedAndNew = async (ledger: Ledger, when: string): Promise<void> => {
    for (const run of await ledger.runs()) {
      if (verifiedSealed.has(run.runId)) continue;
      const results = await verifyLedger(ledger, { runId: run.runId });
      assert.deepEqual(results.problems, [], when);
      if (run.sealed) verifiedSealed.add(run.runId);
    }
  };
  const recover = async (ledger: Ledger, number: number, when: string): Promise<void> => {
    // Recovery sweeps its scratch directory for what dead processes left. The default, $TMPDIR/redline-runs, holds
    // the run directories of every other test file running meanwhile (these runs have none): a sweep there can
    // remove a directory another process is still writing into (ENOTEMPTY). Each ledger gets its own, as the writer does.
    for (const recovery of await recoverRuns({ ledger, scratchDir: path.join(scratchDir, String(number)) })) {
      if (recovery.action === 'resumed') resumed += 1;
      else if (recovery.action === 'sealed_crashed') sealedCrashed += 1;
      // The writer's last statement may commit its run's seal after recovery listed the run as unsealed.
      else if (recovery.action === 'already_sealed') alreadySealed += 1;
      else assert.fail(`${when}: ${recovery.runId} ${recovery.action} (${recovery.detail})`);
    }
  };

  // Writers start ahead of their turn: loading and opening take longer than a kill and its recovery.
  const waiting: ReturnType<typeof startWriter>[] = [];
  let started = 0;
  const startAhead = (): void => {
    for (; started < ROUNDS && waiting.length < WRITERS_AHEAD; started += 1)
      waiting.push(startWriter([scratchDir, replay, backend.connection(String(started)), ...backend.locations]));
  };
  startAhead();
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const targets = backend.locations.map(() => 1 + Math.floor(random() * MAX_RECORDS));
      const seen = await killAfter(await (waiting.shift() as ReturnType<typeof startWriter>), targets);
      records += seen.reduce((sum, count) => sum + count, 0);
      startAhead();
      const kill = (ledger: number): string => `after kill ${round + 1} of ledger ${ledger} (${seen[ledger]} records)`;
      const ledgers = await Promise.all(backend.locations.map((location) => backend.open(location)));
      try {
        await eachOf(ledgers, async (ledger, number) => {
          await verifyUnsealedAndNew(ledger, `${kill(number)}, before recovery`);
          // Recovery races whatever the killed writer still has in flight, as a recovery after a real crash does.
          await recover(ledger, number, kill(number));
        });
        await backend.settled(String(round));
        await eachOf(ledgers, async (ledger, number) => {
          // A run whose first transaction committed after recovery listed the runs is recovered now.
          await recover(ledger, number, `${kill(number)}, once the writer's statements ended`);
          assert.deepEqual(await ledger.runs({ unsealed: true }), [], `${kill(number)}: recovery leaves no unsealed run`);
          await verifyUnsealedAndNew(ledger, `${kill(number)}, after recovery`);
        });
      } finally {
        for (const ledger of ledgers) await ledger.close();
      }
    }
  } finally {
    // A failed kill leaves writers waiting for their go: they must not outlive the test.
    for (const writer of waiting) (await writer.catch(() => undefined))?.child.kill('SIGKILL');
  }
  let runs = 0;
  for (const location of backend.locations) {
    const ledger = await backend.open(location);
    try {
      const results = await verifyLedger(ledger);
      assert.deepEqual(results.problems, [], `the whole ledger ${location} at the end`);
      runs += results.runs;
    } finally {
      await ledger.close();
    }
  }
  return { resumed, sealedCrashed, alreadySealed, runs, records };
}

async function replayFile(): Promise<string> {
  const dir = await tempWorkspace({});
  const file = path.join(dir, 'replay.json');
  await writeFile(
    file,
    JSON.stringify([
      { value: { nom: 1 } },
      { value: { name: 'a' } },
      { value: 3 },
      { value: { name: 'b' } },
      { value: {} },
      { value: { name: 'c' } },
    ]),
  );
  return file;
}

const summary = (totals: Awaited<ReturnType<typeof crashRecoverVerify>>): string =>
  `${ROUNDS * LEDGERS} kills of ${ROUNDS} writers (seed ${SEED}) after ${totals.records} records reported, ${totals.runs} runs, ` +
  `${totals.resumed} resumed, ${totals.sealedCrashed} sealed crashed, ${totals.alreadySealed} already sealed`;

const ledgerNumbers = Array.from({ length: LEDGERS }, (_, number) => number);

// The two backends run side by side: each mostly waits (on PostgreSQL, on a writer starting).
describe(`crash safety: a writer killed with SIGKILL at random moments (seed ${SEED})`, { concurrency: true }, () => {
  it(`leaves SQLite ledgers that verify and recover, ${ROUNDS * LEDGERS} times`, async (t) => {
    const replay = await replayFile();
    const scratchDir = path.dirname(replay);
    const totals = await crashRecoverVerify(
      {
        locations: ledgerNumbers.map((number) => path.join(scratchDir, `crash-${number}.db`)),
        open: (database) => SqliteLedger.open({ database, synchronous: 'off' }),
        connection: () => 'sqlite',
        settled: async () => {},
      },
      { scratchDir, replay },
    );
    t.diagnostic(`sqlite: ${summary(totals)}`);
    assert.ok(totals.resumed > 0 && totals.sealedCrashed > 0, JSON.stringify(totals));
  });

  it(`leaves PostgreSQL ledgers that verify and recover, ${ROUNDS * LEDGERS} times`, async (t) => {
    const replay = await replayFile();
    const base = `redline_crash_${process.pid}`;
    const schemas = ledgerNumbers.map((number) => `${base}_${number}`);
    const application = (tag: string): string => `${base}_writer_${tag}`;
    const admin = new pg.Client(PG_URL);
    await admin.connect();
    try {
      const totals = await crashRecoverVerify(
        {
          locations: schemas,
          open: (schema) => PostgresLedger.open({ connection: PG_URL, schema }),
          connection: (tag) => `${PG_URL}&application_name=${application(tag)}`,
          async settled(tag) {
            for (let polls = 0; ; polls += 1) {
              const { rows } = await admin.query<{ count: string }>('SELECT count(*) FROM pg_stat_activity WHERE application_name = $1', [
                application(tag),
              ]);
              if (rows[0]?.count === '0') return;
              assert.ok(polls < 2000, `the killed writer's connections are still open after ${polls} polls`);
              await sleep(5);
            }
          },
        },
        { scratchDir: path.dirname(replay), replay },
      );
      t.diagnostic(`postgres: ${summary(totals)}`);
      assert.ok(totals.resumed > 0 && totals.sealedCrashed > 0, JSON.stringify(totals));
    } finally {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});
