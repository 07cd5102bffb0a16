import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AdaptivePriors } from '../../src/guards/adaptive-priors.js';
import type { Ledger, TaskPriors } from '../../src/ledger/ledger.js';
import { MIGRATIONS } from '../../src/ledger/migrations.js';
import { POSTGRES_MIGRATIONS } from '../../src/ledger/postgres/migrations.js';
import { SQLITE_MIGRATIONS } from '../../src/ledger/sqlite/migrations.js';
import {
  childLocationArgs,
  openLedgerAt,
  withLedger,
  writeDirectly,
  type Backend,
  type OpenedLedger,
  type SqlBackend,
  type SqlBackendName,
  type Storage,
} from './backends.js';
import { learnedRun } from './records.js';

// A plain node program importing compiled code (see open-ledger-in.mjs): cheaper to start than a tsx child.
const CHILD = fileURLToPath(new URL('../fixtures/ledger/learn-child.mjs', import.meta.url));

/** What learning `count` runs of {@link learnedRun}, in any order, leaves: every run and every gain counted. */
function assertLearnedAll(priors: TaskPriors | undefined, count: number): void {
  assert.ok(priors, 'priors were learned');
  assert.equal(priors.runs, count);
  assert.deepEqual(
    priors.gains.map((gain) => gain.n),
    [0, count, count],
  );
  const meanGain =
    Array.from({ length: count }, (_, index) => (learnedRun(index)[1] as number) - 0.1).reduce((sum, gain) => sum + gain, 0) / count;
  assert.ok(Math.abs((priors.gains[1]?.mean ?? NaN) - meanGain) < 1e-12, `mean gain ${priors.gains[1]?.mean}, expected ${meanGain}`);
}

/**
 * Starts one process per learner on the ledger at `location`; each opens it and says `ready`, then all are
 * told to go at once and each learns `count` runs of the same task type.
 */
async function learnFromProcesses(
  name: SqlBackendName,
  location: string,
  taskType: string,
  processes: number,
  count: number,
): Promise<void> {
  const children = Array.from({ length: processes }, () => {
    const child = spawn(process.execPath, [CHILD, ...childLocationArgs(name, location)], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = once(child, 'close').then(([code]) => ({ code: code as number | null, stderr }));
    return { child, closed, ready: Promise.race([once(child.stdout, 'data'), closed]) };
  });
  await Promise.all(children.map(({ ready }) => ready));
  const runs = Array.from({ length: count }, (_, index) => learnedRun(index));
  for (const { child } of children) if (child.exitCode === null) child.stdin.end(`${JSON.stringify({ taskType, runs })}\n`);
  const outcomes = await Promise.all(children.map(({ closed }) => closed));
  assert.deepEqual(
    outcomes,
    children.map(() => ({ code: 0, stderr: '' })),
  );
}

/** Writes a ledger at schema version 1 only, as a release before the priors table left it. */
function createAtVersion1(name: SqlBackendName, location: string): Promise<void> {
  return writeDirectly(name, location, {
    sqlite(db) {
      db.exec('CREATE TABLE redline_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
      db.exec(SQLITE_MIGRATIONS[1]);
      db.prepare('INSERT INTO redline_migrations (version, name, applied_at) VALUES (1, ?, 0)').run(MIGRATIONS[0].name);
    },
    async postgres(client, S) {
      await client.query(`CREATE SCHEMA ${S}`);
      await client.query(
        `CREATE TABLE ${S}.redline_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
      );
      await client.query(POSTGRES_MIGRATIONS[1](S));
      await client.query(`INSERT INTO ${S}.redline_migrations (version, name, applied_at) VALUES (1, $1, 0)`, [MIGRATIONS[0].name]);
    },
  });
}

async function withStorage(backend: SqlBackend, work: (storage: Storage) => Promise<void>): Promise<void> {
  const storage = await backend.storage();
  try {
    await work(storage);
  } finally {
    await storage.dispose();
  }
}

async function closing<T>(ledger: Ledger, work: (ledger: Ledger) => Promise<T>): Promise<T> {
  try {
    return await work(ledger);
  } finally {
    await ledger.close();
  }
}

/**
 * What every `Ledger` backend keeps for the `adaptive` rule (docs/stop-rules.md): per task type, the priors learned
 * from finished runs, with the statistics `AdaptivePriors` computes, and no update lost to a race.
 */
export function priorsContract(backend: Backend): void {
  const open = (): Promise<OpenedLedger> => backend.open();

  // Every case has its own storage: they run side by side (opening PostgreSQL storage mostly waits on the server).
  describe(`Ledger priors contract: ${backend.name}`, { concurrency: 4 }, () => {
    it('keeps what each task type learned, exactly as AdaptivePriors.record computes it', () =>
      withLedger(open, async ({ ledger }) => {
        const essay = 'essay “long” ✓';
        assert.equal(await ledger.priors(essay), undefined);
        const runs: [string, number[]][] = [
          [essay, [0.2, 0.5, 0.6]],
          ['code', [0.9]],
          [essay, [0.3, 0.4]],
          [essay, [0.25, 0.35, 0.5, 0.55]],
          ['code', []],
        ];
        const expected = new AdaptivePriors();
        for (const [taskType, scores] of runs) {
          await ledger.learn(taskType, scores);
          expected.record(taskType, scores);
        }
        assert.deepEqual(await ledger.priors(essay), expected.toJSON()[essay]);
        assert.deepEqual(await ledger.priors('code'), { runs: 2, gains: [] });
        assert.equal(await ledger.priors('elsewhere'), undefined);
        const learned = AdaptivePriors.from({ [essay]: (await ledger.priors(essay)) as TaskPriors });
        assert.deepEqual(learned.gain(essay, 2), expected.gain(essay, 2));
      }));

    it('hands out priors that later learns leave alone', () =>
      withLedger(open, async ({ ledger }) => {
        await ledger.learn('essay', [0.2, 0.4]);
        const before = await ledger.priors('essay');
        const copy = structuredClone(before);
        await ledger.learn('essay', [0.2, 0.3, 0.5]);
        assert.deepEqual(before, copy);
        assert.equal((await ledger.priors('essay'))?.runs, 2);
      }));

    it('refuses a task type that is not a name and scores that are not finite numbers, learning nothing', () =>
      withLedger(open, async ({ ledger }) => {
        const bad: [string, unknown][] = [
          ['', [0.5]],
          ['essay', [0.5, Number.NaN]],
          ['essay', [Number.POSITIVE_INFINITY]],
          ['essay', ['0.5']],
          ['essay', 0.5],
        ];
        for (const [taskType, scores] of bad) {
          await assert.rejects(
            ledger.learn(taskType, scores as number[]),
            { name: 'TypeError', message: /^Expected `(taskType|scores)`/ },
            JSON.stringify([taskType, scores]),
          );
        }
        assert.equal(await ledger.priors('essay'), undefined);
        assert.equal(await ledger.priors(''), undefined);
      }));

    it('loses no update when one ledger learns many runs at once', () =>
      withLedger(open, async ({ ledger }) => {
        await Promise.all(Array.from({ length: 100 }, (_, index) => ledger.learn('essay', learnedRun(index))));
        assertLearnedAll(await ledger.priors('essay'), 100);
      }));

    if (backend.name !== 'memory') sqlPriorsContract(backend);
  });
}

/** What only priors in a database promise: they persist, and learners on other connections or processes queue. */
function sqlPriorsContract(backend: SqlBackend): void {
  it('keeps the priors for every later open', () =>
    withLedger(
      () => backend.open(),
      async ({ ledger, reopen }) => {
        await ledger.learn('essay', [0.2, 0.5]);
        const learned = await ledger.priors('essay');
        await closing(await reopen(), async (other) => assert.deepEqual(await other.priors('essay'), learned));
      },
    ));

  it('adds the priors table to a ledger written before it (migration 2)', () =>
    withStorage(backend, async (storage) => {
      await createAtVersion1(backend.name, storage.location);
      await closing(await openLedgerAt(backend.name, storage.location), async (ledger) => {
        await ledger.learn('essay', [0.2, 0.5]);
        assert.equal((await ledger.priors('essay'))?.runs, 1);
      });
    }));

  it('loses no update when two ledgers on the same storage learn at once (2 × 50 runs)', () =>
    withLedger(
      () => backend.open(),
      async ({ ledger, reopen }) => {
        await closing(await reopen(), async (other) => {
          await Promise.all(
            [ledger, other].map(async (learner) => {
              for (let index = 0; index < 50; index += 1) await learner.learn('essay', learnedRun(index));
            }),
          );
        });
        assertLearnedAll(await ledger.priors('essay'), 100);
      },
    ));

  it('loses no update when two processes learn at once (2 × 50 runs)', () =>
    withStorage(backend, async (storage) => {
      // Migrated before the race, so that the learners, not the migrations, contend.
      await (await openLedgerAt(backend.name, storage.location)).close();
      await learnFromProcesses(backend.name, storage.location, 'essay', 2, 50);
      await closing(await openLedgerAt(backend.name, storage.location), async (ledger) =>
        assertLearnedAll(await ledger.priors('essay'), 100),
      );
    }));
}
