import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { exportJsonl, importJsonl } from '../../src/ledger/export.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import type { Ledger, LedgerRecord } from '../../src/ledger/ledger.js';
import { backends, openLedgerAt, POSTGRES_URL, sqlBackends, withLedger, type SqlBackend, type SqlBackendName } from './backends.js';
import { appendAll, SEAL } from './records.js';

/** A run of `missionId` with plan `plan`, resolving `resolves` when given, sealed with `stopReason` (or left open). */
function linkedStory(
  runId: string,
  {
    at,
    missionId = 'm',
    plan,
    resolves,
    stopReason,
  }: { at: number; missionId?: string; plan?: string; resolves?: string; stopReason?: string },
): LedgerRecord[] {
  const started: LedgerRecord = {
    runId,
    seq: 0,
    type: 'run.started',
    at,
    data: {
      mission: { id: missionId, taskType: 'default' },
      ...(plan === undefined ? {} : { plan: { hash: plan, proposer: { kind: 'command', name: 'echo' } } }),
      ...(resolves === undefined ? {} : { resolves: { runId: resolves, outcome: 'blocked', stopReason: 'human_gate', note: 'fixed' } }),
    },
  };
  if (stopReason === undefined) return [started];
  return [
    started,
    {
      runId,
      seq: 1,
      type: 'run.sealed',
      at: at + 1,
      data: { ...SEAL, outcome: 'failed_with_evidence', verification: 'unverified', stopReason, detail: '' },
    },
  ];
}

async function add(ledger: Ledger, ...runs: LedgerRecord[][]): Promise<void> {
  for (const records of runs) await appendAll(ledger, records);
}

const sqlBackend = (name: SqlBackendName): SqlBackend => sqlBackends.find((backend) => backend.name === name) as SqlBackend;

const ids = (rows: readonly { runId: string }[]): string[] => rows.map((row) => row.runId);

for (const backend of backends) {
  describe(`Ledger contract, linked runs and plans: ${backend.name}`, () => {
    const open = () => backend.open();

    it("keeps the plan hash and the resolved run of run.started on the run's row", () =>
      withLedger(open, async ({ ledger }) => {
        await add(
          ledger,
          linkedStory('a', { at: 1, plan: 'p1', stopReason: 'human_gate' }),
          linkedStory('b', { at: 5, plan: 'p2', resolves: 'a' }),
        );
        await add(ledger, linkedStory('old', { at: 9 }));
        const [a, b, old] = [
          ...(await ledger.runs({ runId: 'a' })),
          ...(await ledger.runs({ runId: 'b' })),
          ...(await ledger.runs({ runId: 'old' })),
        ];
        assert.equal(a?.planHash, 'p1');
        assert.equal(a?.resolves, undefined);
        assert.equal(b?.planHash, 'p2');
        assert.equal(b?.resolves, 'a');
        assert.equal(old?.planHash, undefined, 'a run recorded without a plan has none');
        assert.equal(old?.resolves, undefined);
      }));

    it('lists the runs that resolve a run, the runs of a mission and of a plan', () =>
      withLedger(open, async ({ ledger }) => {
        await add(
          ledger,
          linkedStory('a', { at: 1, plan: 'p1', stopReason: 'oscillation' }),
          linkedStory('b', { at: 2, plan: 'p2', resolves: 'a', stopReason: 'human_gate' }),
          linkedStory('c', { at: 3, plan: 'p3', resolves: 'a' }),
          linkedStory('d', { at: 4, plan: 'p3', resolves: 'b' }),
          linkedStory('x', { at: 5, missionId: 'other', plan: 'p1' }),
        );
        assert.deepEqual(ids(await ledger.runs({ resolves: 'a' })), ['b', 'c']);
        assert.deepEqual(ids(await ledger.runs({ resolves: 'b' })), ['d']);
        assert.deepEqual(ids(await ledger.runs({ resolves: 'd' })), []);
        assert.deepEqual(ids(await ledger.runs({ missionId: 'm', planHash: 'p3' })), ['c', 'd']);
        assert.deepEqual(ids(await ledger.runs({ planHash: 'p1' })), ['a', 'x']);
        assert.deepEqual(ids(await ledger.runs({ missionId: 'other' })), ['x']);
      }));

    it("finds the newest sealed run of a mission's plan, skipping open runs, other plans and other missions", () =>
      withLedger(open, async ({ ledger }) => {
        assert.equal(await ledger.latestSealed?.({ missionId: 'm', planHash: 'p1' }), undefined);
        await add(
          ledger,
          linkedStory('first', { at: 1, plan: 'p1', stopReason: 'oscillation' }),
          linkedStory('second', { at: 2, plan: 'p1', stopReason: 'human_gate' }),
          linkedStory('open', { at: 3, plan: 'p1' }),
          linkedStory('other-plan', { at: 4, plan: 'p2', stopReason: 'no_progress' }),
          linkedStory('other-mission', { at: 5, missionId: 'n', plan: 'p1', stopReason: 'reject_repeat' }),
        );
        const latest = await ledger.latestSealed?.({ missionId: 'm', planHash: 'p1' });
        assert.equal(latest?.runId, 'second');
        assert.equal(latest?.stopReason, 'human_gate');
        assert.equal((await ledger.latestSealed?.({ missionId: 'm', planHash: 'p2' }))?.runId, 'other-plan');
        assert.equal(await ledger.latestSealed?.({ missionId: 'm', planHash: 'p9' }), undefined);
        // Same start time: the greater id is the newer, as in start order.
        await add(ledger, linkedStory('third', { at: 2, plan: 'p1', stopReason: 'no_progress' }));
        assert.equal((await ledger.latestSealed?.({ missionId: 'm', planHash: 'p1' }))?.runId, 'third');
      }));

    it('streams only the runs a link filter names', () =>
      withLedger(open, async ({ ledger }) => {
        await add(
          ledger,
          linkedStory('a', { at: 1, plan: 'p1', stopReason: 'oscillation' }),
          linkedStory('b', { at: 2, plan: 'p2', resolves: 'a' }),
        );
        const streamed: string[] = [];
        for await (const { run } of ledger.streamHistory?.({ filter: { resolves: 'a' }, pageSize: 1 }) ?? []) streamed.push(run.runId);
        assert.deepEqual(streamed, ['b']);
      }));

    it('takes the link of an imported run from its run.started record, not from the exported row', () =>
      withLedger(open, async ({ ledger }) => {
        await add(
          ledger,
          linkedStory('a', { at: 1, plan: 'p1', stopReason: 'oscillation' }),
          linkedStory('b', { at: 2, plan: 'p2', resolves: 'a' }),
        );
        const lines: string[] = [];
        for await (const line of exportJsonl(ledger)) {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          // A doctored row: the import must not believe it.
          lines.push(
            parsed.kind === 'run' && parsed.runId === 'a' ? JSON.stringify({ ...parsed, resolves: 'b', planHash: 'forged' }) : line,
          );
        }
        await withLedger(open, async ({ ledger: target }) => {
          await importJsonl(target, lines);
          assert.deepEqual(ids(await target.runs({ resolves: 'a' })), ['b']);
          assert.deepEqual(ids(await target.runs({ resolves: 'b' })), []);
          assert.equal((await target.latestSealed?.({ missionId: 'm', planHash: 'p1' }))?.runId, 'a');
        });
      }));
  });
}

describe('ledger verify checks each linked run’s link', () => {
  it('names a resolved run that is missing, unsealed or complete, and a run row that disagrees with run.started', async () => {
    const storage = await sqlBackend('sqlite').storage();
    const ledger = await openLedgerAt('sqlite', storage.location);
    try {
      await add(
        ledger,
        linkedStory('failed', { at: 1, plan: 'p1', stopReason: 'oscillation' }),
        linkedStory('good', { at: 2, plan: 'p2', resolves: 'failed', stopReason: 'no_progress' }),
        linkedStory('open', { at: 3, plan: 'p3' }),
        linkedStory('to-open', { at: 4, plan: 'p4', resolves: 'open' }),
        linkedStory('to-nobody', { at: 5, plan: 'p5', resolves: 'nobody' }),
      );
      await appendAll(ledger, [
        { runId: 'complete', seq: 0, type: 'run.started', at: 6, data: { mission: { id: 'm' } } },
        { runId: 'complete', seq: 1, type: 'run.sealed', at: 7, data: { ...SEAL, detail: '' } },
      ]);
      await add(ledger, linkedStory('to-complete', { at: 8, plan: 'p6', resolves: 'complete' }));
      await add(ledger, linkedStory('moved', { at: 9, plan: 'p7', resolves: 'failed' }));
      // Direct SQL on the run row of an open run (the triggers let an unsealed row change).
      const db = new Database(storage.location);
      assert.equal(db.prepare("UPDATE runs SET resolves = 'good' WHERE run_id = 'moved'").run().changes, 1);
      db.close();
      const problems = new Map<string, string | undefined>();
      const totals = await verifyLedger(ledger, { onRun: (result) => void problems.set(result.runId, result.linkProblem) });
      assert.equal(totals.broken, 4);
      assert.deepEqual(Object.fromEntries(problems), {
        failed: undefined,
        good: undefined,
        open: undefined,
        'to-open': 'it resolves run open, which is not sealed',
        'to-nobody': 'it resolves run nobody, which is not in this ledger',
        complete: undefined,
        'to-complete': 'it resolves run complete, which was sealed complete, not blocked or failed_with_evidence',
        moved: 'the run row links to run good, but run.started to run failed',
      });
    } finally {
      await ledger.close();
      await storage.dispose();
    }
  });
});

describe('Ledger links are index look-ups', () => {
  it('SQLite: the newest sealed run of a plan and the runs resolving a run come through their indexes', async () => {
    const storage = await sqlBackend('sqlite').storage();
    try {
      await (await openLedgerAt('sqlite', storage.location)).close();
      const db = new Database(storage.location, { readonly: true });
      try {
        const plan = (sql: string, ...params: unknown[]): string =>
          (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
        assert.match(
          plan(
            'SELECT * FROM runs WHERE mission_id = ? AND plan_hash = ? AND sealed = 1 ORDER BY started_at DESC, run_id DESC LIMIT 1',
            'm',
            'p',
          ),
          /USING INDEX runs_by_plan/,
        );
        assert.match(plan('SELECT * FROM runs WHERE resolves = ? ORDER BY started_at, run_id', 'a'), /USING INDEX runs_by_resolves/);
      } finally {
        db.close();
      }
    } finally {
      await storage.dispose();
    }
  });

  it('PostgreSQL: the same queries can use the same indexes', async () => {
    const storage = await sqlBackend('postgres').storage();
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await (await openLedgerAt('postgres', storage.location)).close();
      // On a few rows the planner prefers a scan: forbid it, to see whether the index can serve.
      await client.query('SET enable_seqscan = off');
      const plan = async (sql: string, params: unknown[]): Promise<string> =>
        (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).rows.map((row) => row['QUERY PLAN']).join('\n');
      const runs = `"${storage.location}".runs`;
      assert.match(
        await plan(
          `SELECT * FROM ${runs} WHERE mission_id = $1 AND plan_hash = $2 AND sealed ORDER BY started_at DESC, run_id DESC LIMIT 1`,
          ['m', 'p'],
        ),
        /runs_by_plan/,
      );
      assert.match(await plan(`SELECT * FROM ${runs} WHERE resolves = $1 ORDER BY started_at, run_id`, ['a']), /runs_by_resolves/);
    } finally {
      await client.end();
      await storage.dispose();
    }
  });
});
