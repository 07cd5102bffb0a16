import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { fileURLToPath } from 'node:url';
import { finding, type Check } from '../../src/core/check.js';
import { chainRecord, parseRecord } from '../../src/ledger/chain.js';
import { GENESIS } from '../../src/core/hash-chain.js';
import { streamHistory, streamRuns } from '../../src/ledger/history.js';
import type { Ledger, LedgerRecord, RunFilter, RunRow, StoredRecord, StreamOptions } from '../../src/ledger/ledger.js';
import { verifyLedger, verifyRun, type RunVerification } from '../../src/ledger/verify.js';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { runMission, type RunResult } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import {
  backends,
  childLocationArgs,
  openLedgerAt,
  withLedger,
  type Backend,
  type OpenedLedger,
  type SqlBackend,
  type SqlBackendName,
} from './backends.js';
import { appendAll, exportAll, recordOf, SEAL, story, type ExportedRun } from './records.js';

// A plain node program importing dist/ (the test builds first): cheaper to start than a tsx child.
const CHILD = fileURLToPath(new URL('../fixtures/ledger/open-ledger-child.mjs', import.meta.url));

/** What `assert.rejects` should see when the adapter refuses with `code`. */
const refused = (code: string) => ({ name: 'LedgerError', code });

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The chain a run's records make on their own, whatever else the ledger holds. */
function chainOf(records: readonly LedgerRecord[]): StoredRecord[] {
  const rows: StoredRecord[] = [];
  for (const record of records) rows.push(chainRecord(rows.at(-1)?.hash ?? GENESIS, record));
  return rows;
}

/** Asserts that the ledger holds exactly these runs, in start order, and that each one verifies. */
async function assertVerified(ledger: Ledger, runIds: readonly string[]): Promise<void> {
  const results: RunVerification[] = [];
  await verifyLedger(ledger, { onRun: (result) => void results.push(result) });
  assert.deepEqual(
    results.map(({ runId, firstBad }) => ({ runId, firstBad })),
    runIds.map((runId) => ({ runId, firstBad: undefined })),
  );
}

const valueCheck = { name: 'value', stage: 'fast', tier: 'demand', required: true } as const;

/** A demand check that passes when the candidate's value is `ok`. */
const valueIsOk: Check = {
  ...valueCheck,
  async run({ candidate }) {
    return candidate.value === 'ok'
      ? [finding(valueCheck, 'pass', [], 'the value is ok')]
      : [finding(valueCheck, 'fail', ['value.not_ok'], `the value is ${String(candidate.value)}`)];
  },
};

/** Has the loop write a whole run: two drafts, then `ok`; its clock starts at `startAt`. */
function missionRun(ledger: Ledger, runId: string, startAt: number): Promise<RunResult> {
  let clock = startAt;
  return runMission({
    mission: defineMission({ id: 'contract-mission', goal: 'say ok', taskType: 'greeting', stopPolicy: { guards: [] } }),
    proposer: functionProposer(({ attempt }) => ({ value: attempt < 3 ? `draft ${attempt}` : 'ok' })),
    checks: [valueIsOk],
    ledger,
    _internal: { now: () => clock++, generateId: () => runId },
  });
}

/**
 * Starts one process per run id that opens the ledger at `location` and writes that run. Every process
 * loads first and says `ready`; then all get their run's records at once, so their opens (and migrations) race.
 */
async function writeFromProcesses(name: SqlBackendName, location: string, runIds: readonly string[]): Promise<void> {
  const children = runIds.map((runId) => {
    const child = spawn(process.execPath, [CHILD, ...childLocationArgs(name, location)], { stdio: 'pipe' });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const closed = once(child, 'close').then(([code]) => ({ runId, code: code as number | null, stderr }));
    return { runId, child, closed, ready: Promise.race([once(child.stdout, 'data'), closed]) };
  });
  await Promise.all(children.map(({ ready }) => ready));
  for (const { runId, child } of children) if (child.exitCode === null) child.stdin.end(`${JSON.stringify(story(runId))}\n`);
  const outcomes = await Promise.all(children.map(({ closed }) => closed));
  assert.deepEqual(
    outcomes,
    runIds.map((runId) => ({ runId, code: 0, stderr: '' })),
  );
}

/**
 * The behaviour every `Ledger` backend shares (docs/ledger.md), run against a real database for each. SQL
 * backends also prove that the database itself, not only the adapter, keeps the chain append-only.
 */
export function ledgerContract(backend: Backend): void {
  // Storage as a fresh open leaves it, recycled from earlier cases: these cases need only the ledger (the
  // database's own guards, reopening and migrating new storage run on fresh storage, in sqlContract).
  const open = (): Promise<OpenedLedger> => backend.openRecycled();

  // Every case has its own storage: they run side by side (opening PostgreSQL storage mostly waits on the server).
  describe(`Ledger contract: ${backend.name}`, { concurrency: 4 }, () => {
    // Every backend's: the export cases open recycled storage on each.
    after(() => Promise.all(backends.map((each) => each.dropRecycled())));
    it('stores each record as canonical JSON, hashed over its predecessor’s hash', () =>
      withLedger(open, async ({ ledger }) => {
        const records = story('run', { steps: 3 });
        const stored = await appendAll(ledger, records);
        assert.equal(
          stored[0]?.body,
          '{"at":1000,"data":{"mission":{"id":"contract","taskType":"default"}},"runId":"run","seq":0,"type":"run.started"}',
        );
        let prevHash = GENESIS;
        for (const [seq, record] of records.entries()) {
          const body = canonicalJson({ runId: record.runId, seq: record.seq, type: record.type, at: record.at, data: record.data });
          assert.deepEqual(stored[seq], { runId: 'run', seq, type: record.type, body, prevHash, hash: sha256(prevHash + body) });
          prevHash = sha256(prevHash + body);
        }
        assert.deepEqual(await ledger.stored('run'), stored);
        assert.deepEqual(await ledger.records('run'), records);
        const [run] = await ledger.runs({ runId: 'run' });
        assert.ok(run);
        assert.deepEqual(verifyRun(run, await ledger.stored('run')), {
          runId: 'run',
          ok: true,
          records: stored.length,
          bytes: stored.reduce((sum, row) => sum + row.body.length, 0),
        });
      }));

    it('answers for a run it does not have with nothing', () =>
      withLedger(open, async ({ ledger }) => {
        assert.deepEqual(await ledger.head('nobody'), { count: 0, sealed: false });
        assert.deepEqual(await ledger.records('nobody'), []);
        assert.deepEqual(await ledger.stored('nobody'), []);
        assert.deepEqual(await ledger.runs({ runId: 'nobody' }), []);
      }));

    it('counts appended records in head, which turns sealed with the seal', () =>
      withLedger(open, async ({ ledger }) => {
        const records = story('run');
        for (const record of records) {
          await ledger.append(record);
          assert.deepEqual(await ledger.head('run'), { count: record.seq + 1, sealed: record.type === 'run.sealed' });
        }
      }));

    it('hands out stored rows and records that later appends leave alone', () =>
      withLedger(open, async ({ ledger }) => {
        await appendAll(ledger, story('run', { sealed: false }));
        const [rows, records] = [await ledger.stored('run'), await ledger.records('run')];
        const [rowsBefore, recordsBefore] = [[...rows], [...records]];
        await ledger.append(recordOf('run', rows.length, 'attempt'));
        assert.deepEqual(rows, rowsBefore);
        assert.deepEqual(records, recordsBefore);
      }));

    it('pages runs newest first by keyset, filtered by outcome, task type and start time, with each run’s newest record', () =>
      withLedger(open, async ({ ledger }) => {
        assert.ok(ledger.runPage !== undefined && ledger.lastRecords !== undefined);
        await appendAll(ledger, story('c', { at: 3_000, taskType: 'b' }));
        await appendAll(ledger, story('d', { at: 2_000, taskType: 'b', sealed: false }));
        await appendAll(ledger, story('a', { at: 1_000, taskType: 'a' }));
        await appendAll(ledger, story('b', { at: 2_000, taskType: 'a' }));
        const ids = async (query: Parameters<NonNullable<Ledger['runPage']>>[0]): Promise<string[]> =>
          ((await ledger.runPage?.(query)) ?? []).map((run) => run.runId);
        assert.deepEqual(await ids({ limit: 2 }), ['c', 'd']);
        assert.deepEqual(await ids({ limit: 2, before: { startedAt: 2_000, runId: 'd' } }), ['b', 'a']);
        assert.deepEqual(await ids({ limit: 9, filter: { outcome: SEAL.outcome } }), ['c', 'b', 'a']);
        assert.deepEqual(await ids({ limit: 9, filter: { taskType: 'b', since: 1_500, until: 3_000 } }), ['d']);
        assert.deepEqual(await ids({ limit: 9, filter: { missionId: 'elsewhere' } }), []);
        const last = await ledger.lastRecords(['c', 'd', 'nobody']);
        assert.deepEqual(last.map(({ runId, type }) => [runId, type]).sort(), [
          ['c', 'run.sealed'],
          ['d', 'decision'],
        ]);
      }));

    it('lists runs in start order, filtered by unsealed, taskType, since and runId', () =>
      withLedger(open, async ({ ledger }) => {
        // Written out of start order, so the order seen is the ledger's doing.
        const c = await appendAll(ledger, story('c', { at: 3_000, taskType: 'b' }));
        await appendAll(ledger, story('d', { at: 2_500, taskType: 'b', sealed: false }));
        await appendAll(ledger, story('a', { at: 1_000, taskType: 'a' }));
        const b = await appendAll(ledger, story('b', { at: 2_000, taskType: 'a', sealed: false }));
        const ids = async (filter?: RunFilter): Promise<string[]> => (await ledger.runs(filter)).map((run) => run.runId);
        assert.deepEqual(await ids(), ['a', 'b', 'd', 'c']);
        assert.deepEqual(await ids({ unsealed: false }), ['a', 'b', 'd', 'c']);
        assert.deepEqual(await ids({ unsealed: true }), ['b', 'd']);
        assert.deepEqual(await ids({ taskType: 'a' }), ['a', 'b']);
        assert.deepEqual(await ids({ taskType: 'elsewhere' }), []);
        assert.deepEqual(await ids({ since: 2_000 }), ['b', 'd', 'c']);
        assert.deepEqual(await ids({ runId: 'd' }), ['d']);
        assert.deepEqual(await ids({ unsealed: true, taskType: 'b', since: 2_000 }), ['d']);
        assert.deepEqual(await ledger.runs({ runId: 'c' }), [
          {
            runId: 'c',
            missionId: 'contract',
            taskType: 'b',
            startedAt: 3_000,
            recordCount: c.length,
            lastHash: c.at(-1)?.hash,
            sealed: true,
            ...SEAL,
          },
        ]);
        assert.deepEqual(await ledger.runs({ runId: 'b' }), [
          {
            runId: 'b',
            missionId: 'contract',
            taskType: 'a',
            startedAt: 2_000,
            recordCount: b.length,
            lastHash: b.at(-1)?.hash,
            sealed: false,
          },
        ]);
      }));

    it('streams its history in start order, page by page, each run with its stored records', () =>
      withLedger(open, async ({ ledger }) => {
        // Two runs share a start time (ordered by id), one is unsealed, two task types.
        const runs = [
          { id: 'e', at: 5_000, taskType: 'a' },
          { id: 'b', at: 2_000, taskType: 'b' },
          { id: 'c', at: 2_000, taskType: 'a', sealed: false },
          { id: 'a', at: 9_000, taskType: 'b' },
          { id: 'd', at: 1_000, taskType: 'a' },
          { id: 'f', at: 7_000, taskType: 'a', steps: 5 },
          { id: 'g', at: 3_000, taskType: 'b' },
        ];
        for (const run of runs) await appendAll(ledger, story(run.id, run));
        const expected = async (filter?: RunFilter): Promise<ExportedRun[]> =>
          Promise.all((await ledger.runs(filter)).map(async (run) => ({ run, records: await ledger.stored(run.runId) })));
        const streamed = async (options: StreamOptions): Promise<ExportedRun[]> => {
          const read: ExportedRun[] = [];
          for await (const item of streamHistory(ledger, options)) read.push(item);
          return read;
        };
        const all = await expected();
        assert.deepEqual(
          all.map(({ run }) => run.runId),
          ['d', 'b', 'c', 'g', 'e', 'f', 'a'],
        );
        // Page sizes that end a page on every run, inside runs sharing a start time, at the end and past it.
        for (const pageSize of [1, 2, 3, 6, 7, 8, 256]) assert.deepEqual(await streamed({ pageSize }), all, `pages of ${pageSize}`);
        for (const filter of [
          { taskType: 'a' },
          { since: 2_000 },
          { unsealed: true },
          { runId: 'f' },
          { runId: 'nobody' },
          { taskType: 'b', since: 3_000 },
        ])
          assert.deepEqual(await streamed({ filter, pageSize: 2 }), await expected(filter), JSON.stringify(filter));
        const rows: RunRow[] = [];
        for await (const run of streamRuns(ledger, { pageSize: 2 })) rows.push(run);
        assert.deepEqual(rows, await ledger.runs());
        await assert.rejects(streamHistory(ledger, { pageSize: 0 }).next(), {
          name: 'TypeError',
          message: /Expected pageSize to be a positive integer, got 0/,
        });
      }));

    it('shows a run appended while its history streams whole or not at all, and frees the stream when left early', () =>
      withLedger(open, async ({ ledger }) => {
        for (const [index, id] of ['r0', 'r1', 'r2', 'r3'].entries())
          await appendAll(ledger, story(id, { at: 1_000 * (index + 1), sealed: index !== 2 }));
        const before = new Map((await exportAll(ledger)).map((run) => [run.run.runId, run]));
        const stream = streamHistory(ledger, { pageSize: 1 });
        const seen: ExportedRun[] = [];
        const first = await stream.next();
        if (first.done !== true) seen.push(first.value);
        // Meanwhile: the unsealed run later in start order gets two more records, and a new run starts last.
        await appendAll(ledger, [recordOf('r2', 3, 'attempt', { at: 3_100 }), recordOf('r2', 4, 'decision', { at: 3_200 })]);
        await appendAll(ledger, story('r4', { at: 9_000 }));
        for await (const item of stream) seen.push(item);
        const after = new Map((await exportAll(ledger)).map((run) => [run.run.runId, run]));
        assert.deepEqual(
          seen.slice(0, 4).map(({ run }) => run.runId),
          ['r0', 'r1', 'r2', 'r3'],
        );
        for (const item of seen) {
          assert.ok(verifyRun(item.run, item.records).ok, `run ${item.run.runId} as streamed verifies`);
          const states = [before.get(item.run.runId), after.get(item.run.runId)].filter((state) => state !== undefined);
          assert.ok(
            states.some((state) => isDeepStrictEqual(state, item)),
            `run ${item.run.runId} is streamed as it stood before or after the appends`,
          );
        }
        // A stream left after its first run gives its connection and snapshot back: the ledger goes on.
        for await (const item of streamHistory(ledger, { pageSize: 1 })) if (item.run.runId === 'r0') break;
        await appendAll(ledger, story('r5', { at: 10_000 }));
        assert.equal((await ledger.runs()).length, 6);
      }));

    it('records a run of the loop that verifies, its run row carrying outcome, verification and stop reason', () =>
      withLedger(open, async ({ ledger }) => {
        const result = await missionRun(ledger, 'mission', 10_000);
        assert.deepEqual(
          [result.outcome, result.verification, result.stopReason, result.attempts],
          ['complete', 'verified', 'demand_passed', 3],
        );
        const stored = await ledger.stored('mission');
        const [started] = await ledger.records('mission');
        assert.deepEqual([started?.type, stored.at(-1)?.type], ['run.started', 'run.sealed']);
        assert.deepEqual(await ledger.runs({ runId: 'mission' }), [
          {
            runId: 'mission',
            missionId: 'contract-mission',
            taskType: 'greeting',
            startedAt: started?.at,
            recordCount: stored.length,
            lastHash: stored.at(-1)?.hash,
            sealed: true,
            outcome: 'complete',
            verification: 'verified',
            stopReason: 'demand_passed',
            planHash: started?.type === 'run.started' ? started.data.plan?.hash : undefined,
          },
        ]);
        await assertVerified(ledger, ['mission']);
      }));

    it('refuses to append to a sealed run, and the refusal changes nothing', () =>
      withLedger(open, async ({ ledger }) => {
        const stored = await appendAll(ledger, story('sealed'));
        await assert.rejects(ledger.append(recordOf('sealed', stored.length, 'attempt')), refused('ledger.sealed'));
        await assert.rejects(ledger.append(recordOf('sealed', stored.length, 'run.sealed')), refused('ledger.sealed'));
        assert.deepEqual(await ledger.head('sealed'), { count: stored.length, sealed: true });
        assert.deepEqual(await ledger.stored('sealed'), stored);
        await assertVerified(ledger, ['sealed']);
      }));

    it('refuses a duplicate, skipped or repeated-start seq, and appends the right one afterwards', () =>
      withLedger(open, async ({ ledger }) => {
        const stored = await appendAll(ledger, story('open', { sealed: false }));
        await assert.rejects(ledger.append(recordOf('open', 1, 'attempt')), refused('ledger.out_of_order'));
        await assert.rejects(ledger.append(recordOf('open', stored.length + 2, 'attempt')), refused('ledger.out_of_order'));
        await assert.rejects(ledger.append(recordOf('open', 0, 'run.started')), refused('ledger.out_of_order'));
        assert.deepEqual(await ledger.stored('open'), stored);
        stored.push(await ledger.append(recordOf('open', stored.length, 'attempt')));
        assert.deepEqual(await ledger.stored('open'), stored);
        await assertVerified(ledger, ['open']);
      }));

    it('starts a run only with run.started at seq 0', () =>
      withLedger(open, async ({ ledger }) => {
        await assert.rejects(ledger.append(recordOf('late', 2, 'attempt')), refused('ledger.out_of_order'));
        await assert.rejects(ledger.append(recordOf('headless', 0, 'attempt')), refused('ledger.not_started'));
        assert.deepEqual(await ledger.runs(), []);
      }));

    it('keeps runs appended interleaved independent', () =>
      withLedger(open, async ({ ledger }) => {
        const a = story('a', { at: 1_000, steps: 4 });
        const b = [...story('b', { at: 2_000, steps: 4, sealed: false }), recordOf('b', 5, 'attempt')];
        for (let seq = 0; seq < b.length; seq++) {
          for (const record of [a[seq], b[seq]]) if (record !== undefined) await ledger.append(record);
        }
        // The seal of `a` came before `b`'s last record; each chain is what its own records make.
        assert.deepEqual(await ledger.stored('a'), chainOf(a));
        assert.deepEqual(await ledger.stored('b'), chainOf(b));
        assert.deepEqual(await ledger.head('a'), { count: a.length, sealed: true });
        assert.deepEqual(await ledger.head('b'), { count: b.length, sealed: false });
        await assertVerified(ledger, ['a', 'b']);
      }));

    it('takes appends to many runs at once', () =>
      withLedger(open, async ({ ledger }) => {
        const runIds = Array.from({ length: 8 }, (_, index) => `run-${index}`);
        await Promise.all(runIds.map((runId, index) => appendAll(ledger, story(runId, { at: 1_000 + index, steps: 6 }))));
        await assertVerified(ledger, runIds);
      }));

    for (const target of backends) {
      it(`exports runs that import into a fresh ${target.name} ledger with every hash kept`, () =>
        withLedger(open, async ({ ledger }) => {
          await appendAll(ledger, story('first', { at: 1_000, steps: 5 }));
          await appendAll(ledger, story('unsealed', { at: 2_000, sealed: false }));
          await missionRun(ledger, 'mission', 3_000);
          const exported = await exportAll(ledger);
          await withLedger(
            () => target.openRecycled(),
            async ({ ledger: copy }) => {
              for (const { run, records } of exported) await copy.import(run, records);
              assert.deepEqual(await exportAll(copy), exported);
              await assertVerified(copy, ['first', 'unsealed', 'mission']);
              // An imported seal holds; an imported unsealed run carries on from its last record.
              await assert.rejects(copy.append(recordOf('first', 7, 'attempt')), refused('ledger.sealed'));
              await copy.append(recordOf('unsealed', 3, 'attempt'));
              await assertVerified(copy, ['first', 'unsealed', 'mission']);
            },
          );
        }));
    }

    it('refuses to import a chain that does not verify, leaving nothing behind', () =>
      withLedger(open, async ({ ledger }) => {
        let exported: ExportedRun | undefined;
        await withLedger(open, async ({ ledger: source }) => {
          await appendAll(source, story('source', { steps: 4 }));
          [exported] = await exportAll(source);
        });
        assert.ok(exported);
        const { run, records } = exported;
        const row = (seq: number): StoredRecord => records[seq] as StoredRecord;
        const broken: [string, RunRow, StoredRecord[]][] = [
          [
            'a modified body',
            run,
            records.map((item) => (item.seq === 2 ? { ...item, body: item.body.replace('retry', 'accept') } : item)),
          ],
          ['a missing record', run, records.filter((item) => item.seq !== 2)],
          [
            'two records trading places',
            run,
            records.map((item) => (item.seq === 1 ? { ...row(2), seq: 1 } : item.seq === 2 ? { ...row(1), seq: 2 } : item)),
          ],
          [
            'a record chained to the wrong predecessor',
            run,
            records.map((item) => (item.seq === 3 ? chainRecord(row(1).hash, parseRecord(item)) : item)),
          ],
          ['a lost tail', run, records.slice(0, -1)],
          [
            'a record after the seal',
            { ...run, recordCount: run.recordCount + 1 },
            [...records, chainRecord(row(records.length - 1).hash, recordOf('source', records.length, 'attempt'))],
          ],
          ['a run row whose last hash is not the last record’s', { ...run, lastHash: row(1).hash }, [...records]],
        ];
        for (const [what, brokenRun, rows] of broken) {
          await assert.rejects(ledger.import(brokenRun, rows), refused('ledger.import_broken'), what);
          assert.deepEqual(await ledger.runs(), [], what);
        }
        await ledger.import(run, records);
        await assertVerified(ledger, ['source']);
        await assert.rejects(ledger.import(run, records), refused('ledger.exists'));
        assert.deepEqual(await ledger.stored('source'), records);
      }));

    it('refuses to import a run it already has', () =>
      withLedger(open, async ({ ledger }) => {
        const stored = await appendAll(ledger, story('native', { sealed: false }));
        const [exported] = await exportAll(ledger);
        assert.ok(exported);
        await assert.rejects(ledger.import(exported.run, exported.records), refused('ledger.exists'));
        assert.deepEqual(await ledger.stored('native'), stored);
        await assertVerified(ledger, ['native']);
      }));

    if (backend.name !== 'memory') sqlContract(backend);
  });
}

/** What only a ledger in a database can promise: its own constraints guard the chain, and it persists. */
function sqlContract(backend: SqlBackend): void {
  const open = () => backend.open();

  describe('the database itself', () => {
    it('refuses a correctly chained row after the seal', () =>
      withLedger(open, async ({ ledger, raw }) => {
        const stored = await appendAll(ledger, story('sealed'));
        const seal = stored.at(-1) as StoredRecord;
        await assert.rejects(raw.insert(chainRecord(seal.hash, recordOf('sealed', stored.length, 'attempt'))), /redline\.ledger\.sealed/);
        await assert.rejects(
          raw.insert(chainRecord(seal.hash, recordOf('sealed', stored.length, 'run.sealed'))),
          /redline\.ledger\.sealed/,
        );
        assert.deepEqual(await ledger.stored('sealed'), stored);
        await assertVerified(ledger, ['sealed']);
      }));

    it('refuses a row that does not follow the run’s last record, and advances the run row for one that does', () =>
      withLedger(open, async ({ ledger, raw }) => {
        const stored = await appendAll(ledger, story('open', { sealed: false }));
        const last = stored.at(-1) as StoredRecord;
        const next = stored.length;
        await assert.rejects(
          raw.insert(chainRecord(stored[0]?.hash ?? '', recordOf('open', next, 'attempt'))),
          /redline\.ledger\.out_of_order/,
          'wrong prevHash',
        );
        await assert.rejects(
          raw.insert(chainRecord(stored[0]?.hash ?? '', recordOf('open', 1, 'attempt'))),
          /redline\.ledger\.out_of_order/,
          'duplicate seq',
        );
        await assert.rejects(
          raw.insert(chainRecord(last.hash, recordOf('open', next + 1, 'attempt'))),
          /redline\.ledger\.out_of_order/,
          'skipped seq',
        );
        assert.deepEqual(await ledger.stored('open'), stored);
        const row = chainRecord(last.hash, recordOf('open', next, 'attempt'));
        await raw.insert(row);
        assert.deepEqual(await ledger.stored('open'), [...stored, row]);
        assert.deepEqual(await ledger.head('open'), { count: next + 1, sealed: false });
        await assertVerified(ledger, ['open']);
      }));

    it('refuses to update or delete stored records, sealed or not', () =>
      withLedger(open, async ({ ledger, raw }) => {
        const sealed = await appendAll(ledger, story('sealed', { at: 1_000 }));
        const open = await appendAll(ledger, story('open', { at: 2_000, sealed: false }));
        for (const [runId, stored] of [
          ['sealed', sealed],
          ['open', open],
        ] as const) {
          for (const seq of [0, stored.length - 1]) {
            for (const column of ['body', 'hash', 'prev_hash'] as const) {
              await assert.rejects(raw.updateColumn(runId, seq, column, 'x'), /redline\.ledger\.append_only/, `${runId} ${seq} ${column}`);
            }
            await assert.rejects(raw.delete(runId, seq), /redline\.ledger\.append_only/, `${runId} ${seq} delete`);
          }
          await assert.rejects(raw.swap(runId, 0, 1), /redline\.ledger\.append_only/, `${runId} swap`);
          assert.deepEqual(await ledger.stored(runId), stored);
        }
        await assertVerified(ledger, ['sealed', 'open']);
      }));

    it('refuses an append from a ledger whose cached head is stale, instead of forking the chain', () =>
      withLedger(open, async ({ ledger, reopen }) => {
        const other = await reopen();
        try {
          await appendAll(ledger, story('shared', { steps: 1, sealed: false }));
          await other.append(recordOf('shared', 2, 'decision'));
          await assert.rejects(ledger.append(recordOf('shared', 3, 'attempt')), refused('ledger.out_of_order'));
          assert.equal((await ledger.stored('shared')).length, 3);
          // The refusal dropped the stale head: trying again chains onto the other ledger's record.
          await ledger.append(recordOf('shared', 3, 'attempt'));
          await assertVerified(ledger, ['shared']);
        } finally {
          await other.close();
        }
      }));
  });

  describe('storage', () => {
    it('shows the same runs to every later open, and migrating again is harmless', () =>
      withLedger(open, async ({ ledger, reopen }) => {
        await appendAll(ledger, story('kept', { at: 1_000 }));
        await appendAll(ledger, story('resumed', { at: 2_000, sealed: false }));
        const before = await exportAll(ledger);
        const second = await reopen();
        try {
          assert.deepEqual(await exportAll(second), before);
        } finally {
          await second.close();
        }
        const third = await reopen();
        try {
          assert.deepEqual(await exportAll(third), before);
          await third.append(recordOf('resumed', 3, 'run.sealed', { at: 2_003 }));
          await assert.rejects(third.append(recordOf('resumed', 4, 'attempt')), refused('ledger.sealed'));
          assert.deepEqual(await exportAll(ledger), await exportAll(third));
          await assertVerified(ledger, ['kept', 'resumed']);
        } finally {
          await third.close();
        }
      }));

    it('lets several processes open and migrate new storage at once, and keeps every run they write', async () => {
      const storage = await backend.storage();
      try {
        const runIds = ['process-1', 'process-2', 'process-3', 'process-4'];
        await writeFromProcesses(backend.name, storage.location, runIds);
        const ledger = await openLedgerAt(backend.name, storage.location);
        try {
          await assertVerified(ledger, runIds);
        } finally {
          await ledger.close();
        }
      } finally {
        await storage.dispose();
      }
    });
  });
}
