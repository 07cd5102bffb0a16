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
/** The most records a writer stores before its kill: a round of its two runs, written side by side (14 and 20 records). */
const MAX_RECORDS = 40;
/** Writers loading and opening the ledger while the current one writes and is recovered. */
const WRITERS_AHEAD = 2;
// Durability across a server crash is not under test (the writer dies, not the server): commits skip the WAL flush.
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test?options=-c%20synchronous_commit%3Doff';

function positiveFromEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`Expected ${name} to be a positive integer, got ${JSON.stringify(text)}`);
  return value;
}

type Writer = ChildProcessByStdio<Writable, Readable, Readable>;

/** Starts a writer and waits until it has loaded and opened the ledger ("waiting"); it writes nothing yet. */
async function startWriter(args: readonly string[]): Promise<{ child: Writer; stderr: () => string }> {
  const child = spawn(process.execPath, [WRITER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [waiting] = (await Promise.race([once(child.stdout, 'data'), once(child, 'exit')])) as [Buffer | number];
  assert.ok(Buffer.isBuffer(waiting) && waiting.toString().startsWith('waiting'), `the writer exited before it was ready: ${stderr}`);
  return { child, stderr: () => stderr };
}

/**
 * Lets a started writer append until it has reported `records` records, and kills it with SIGKILL: it goes on
 * writing meanwhile, so the kill lands at an arbitrary point of its work (the same way however loaded the
 * machine is: the kill point is counted in records, not in milliseconds).
 */
async function killAfter({ child, stderr }: { child: Writer; stderr: () => string }, records: number): Promise<void> {
  let seen = 0;
  const reached = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen >= records) resolve();
    });
    child.once('exit', () => reject(new Error(`the writer exited after ${seen} of ${records} records: ${stderr()}`)));
  });
  child.stdin.write('go\n');
  await reached;
  child.kill('SIGKILL');
  const [, signal] =
    child.exitCode === null && child.signalCode === null
      ? ((await once(child, 'exit')) as [number | null, string | null])
      : [child.exitCode, child.signalCode];
  assert.equal(signal, 'SIGKILL', `the writer ended on its own: ${stderr()}`);
}

interface Backend {
  open(): Promise<Ledger>;
  /** The writer's arguments; `tag` names its connections (PostgreSQL: `application_name`). */
  writerArgs(tag: string): string[];
  /**
   * Returns once nothing the killed writer sent can still commit. A killed client does not stop a statement
   * the server is running for it: on PostgreSQL, that statement's backend ends only when it finds the
   * connection closed. SQLite runs in the writer's process, so its writes die with it.
   */
  settled(tag: string): Promise<void>;
}

async function crashRecoverVerify(
  backend: Backend,
): Promise<{ resumed: number; sealedCrashed: number; alreadySealed: number; runs: number }> {
  const random = sfc32(SEED);
  let resumed = 0;
  let sealedCrashed = 0;
  let alreadySealed = 0;
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
  const recover = async (ledger: Ledger, when: string): Promise<void> => {
    for (const recovery of await recoverRuns({ ledger })) {
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
    for (; started < KILLS && waiting.length < WRITERS_AHEAD; started += 1) waiting.push(startWriter(backend.writerArgs(String(started))));
  };
  startAhead();
  try {
    for (let kill = 0; kill < KILLS; kill += 1) {
      await killAfter(await (waiting.shift() as ReturnType<typeof startWriter>), 1 + Math.floor(random() * MAX_RECORDS));
      startAhead();
      const ledger = await backend.open();
      try {
        await verifyUnsealedAndNew(ledger, `after kill ${kill + 1}, before recovery`);
        // Recovery races whatever the killed writer still has in flight, as a recovery after a real crash does.
        await recover(ledger, `after kill ${kill + 1}`);
        await backend.settled(String(kill));
        // A run whose first transaction committed after recovery listed the runs is recovered now.
        await recover(ledger, `after kill ${kill + 1}, once the writer's statements ended`);
        assert.deepEqual(await ledger.runs({ unsealed: true }), [], `after kill ${kill + 1}: recovery leaves no unsealed run`);
        await verifyUnsealedAndNew(ledger, `after kill ${kill + 1}, after recovery`);
      } finally {
        await ledger.close();
      }
    }
  } finally {
    // A failed kill leaves writers waiting for their go: they must not outlive the test.
    for (const writer of waiting) (await writer.catch(() => undefined))?.child.kill('SIGKILL');
  }
  const ledger = await backend.open();
  try {
    const results = await verifyLedger(ledger);
    assert.deepEqual(results.problems, [], 'the whole ledger at the end');
    return { resumed, sealedCrashed, alreadySealed, runs: results.runs };
  } finally {
    await ledger.close();
  }
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

// The two backends run side by side: each mostly waits (on fsync, on PostgreSQL, on a writer starting).
describe(`crash safety: a writer killed with SIGKILL at random moments (seed ${SEED})`, { concurrency: true }, () => {
  it(`leaves a SQLite ledger that verifies and recovers, ${KILLS} times`, async (t) => {
    const replay = await replayFile();
    const file = path.join(path.dirname(replay), 'crash.db');
    const totals = await crashRecoverVerify({
      open: () => SqliteLedger.open({ database: file }),
      writerArgs: () => [file, '', replay],
      settled: async () => {},
    });
    t.diagnostic(
      `sqlite: ${KILLS} kills (seed ${SEED}), ${totals.runs} runs, ${totals.resumed} resumed, ${totals.sealedCrashed} sealed crashed, ${totals.alreadySealed} already sealed`,
    );
    assert.ok(totals.resumed > 0 && totals.sealedCrashed > 0, JSON.stringify(totals));
  });

  it(`leaves a PostgreSQL ledger that verifies and recovers, ${KILLS} times`, async (t) => {
    const replay = await replayFile();
    const schema = `redline_crash_${process.pid}`;
    const application = (tag: string): string => `${schema}_${tag}`;
    const admin = new pg.Client(PG_URL);
    await admin.connect();
    try {
      const totals = await crashRecoverVerify({
        open: () => PostgresLedger.open({ connection: PG_URL, schema }),
        writerArgs: (tag) => [`${PG_URL}&application_name=${application(tag)}`, schema, replay],
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
      });
      t.diagnostic(
        `postgres: ${KILLS} kills (seed ${SEED}), ${totals.runs} runs, ${totals.resumed} resumed, ${totals.sealedCrashed} sealed crashed, ${totals.alreadySealed} already sealed`,
      );
      assert.ok(totals.resumed > 0 && totals.sealedCrashed > 0, JSON.stringify(totals));
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});
