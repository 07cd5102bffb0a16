import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exportJsonl } from '../../src/ledger/export.js';
import { streamHistory } from '../../src/ledger/history.js';
import type { Ledger, StoredRecord, StoredRun } from '../../src/ledger/ledger.js';
import { replayPolicies } from '../../src/analysis/replay.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { finding } from '../../src/core/check.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { backends, withLedger } from './backends.js';
import { wrapLedger } from '../helpers/ledgers.js';

const RUNS = 6;

/**
 * The ledger as a history walker may see it: only its stream (the methods that load a run list or a run
 * apart throw), and each run handed out is emptied as soon as the next one is asked for. A walker that
 * kept runs to use later (as replay once kept every run's records) would find them empty and count wrong;
 * `read` counts the runs handed out so far, to see that the walker works as it reads.
 */
function streamOnly(inner: Ledger): { ledger: Ledger; readonly read: number } {
  let read = 0;
  const refuse = (name: string) => () => Promise.reject(new Error(`${name} was called: a history walker must stream`));
  const ledger: Ledger = {
    append: (record) => inner.append(record),
    head: (runId) => inner.head(runId),
    records: refuse('records'),
    stored: refuse('stored'),
    runs: refuse('runs'),
    storedRun: refuse('storedRun'),
    async *streamHistory(options) {
      for await (const { run, records } of streamHistory(inner, options)) {
        const held: StoredRecord[] = [...records];
        read += 1;
        yield { run, records: held } satisfies StoredRun;
        // Asked for the next run: this one is done with.
        held.length = 0;
      }
    },
    import: (run, records) => inner.import(run, records),
    priors: (taskType) => inner.priors(taskType),
    learn: (taskType, scores) => inner.learn(taskType, scores),
    close: () => inner.close(),
  };
  return {
    ledger,
    get read() {
      return read;
    },
  };
}

const valueCheck = { name: 'value', stage: 'fast', tier: 'demand', required: true } as const;

/** Has the loop write `RUNS` runs: each two drafts, then `ok` (runs with an odd index give up after two attempts). */
async function writeRuns(ledger: Ledger): Promise<void> {
  for (let index = 0; index < RUNS; index += 1) {
    let clock = 1_000 * index;
    await runMission({
      mission: defineMission({
        id: 'streaming',
        goal: 'say ok',
        taskType: 'greeting',
        budgets: { maxAttempts: index % 2 === 0 ? 5 : 2 },
        stopPolicy: { guards: [] },
      }),
      proposer: functionProposer(({ attempt }) => ({ value: attempt < 3 ? `draft ${attempt}` : 'ok' })),
      checks: [
        {
          ...valueCheck,
          async run({ candidate }) {
            return [
              candidate.value === 'ok' ? finding(valueCheck, 'pass', [], 'ok') : finding(valueCheck, 'fail', ['value.not_ok'], 'not ok'),
            ];
          },
        },
      ],
      ledger,
      _internal: { now: () => clock++, generateId: () => `run-${String(index).padStart(2, '0')}` },
    });
  }
}

for (const backend of backends) {
  describe(`walking the history holds one run at a time: ${backend.name}`, () => {
    it('verify reports each run before it reads the next, and keeps totals', () =>
      withLedger(backend.open, async ({ ledger: inner }) => {
        await writeRuns(inner);
        const view = streamOnly(inner);
        const seen: string[] = [];
        const totals = await verifyLedger(view.ledger, {
          pageSize: 2,
          onRun: (result) => {
            seen.push(result.runId);
            assert.equal(view.read, seen.length, `run ${result.runId} is reported before the next is read`);
          },
        });
        assert.deepEqual(
          seen,
          (await inner.runs()).map((run) => run.runId),
        );
        const records = (await Promise.all(seen.map((runId) => inner.stored(runId)))).reduce((sum, rows) => sum + rows.length, 0);
        assert.deepEqual([totals.ok, totals.runs, totals.broken, totals.records, totals.problems], [true, RUNS, 0, records, []]);
      }));

    it('export writes each run before it reads the next', () =>
      withLedger(backend.open, async ({ ledger: inner }) => {
        await writeRuns(inner);
        const view = streamOnly(inner);
        const lines: string[] = [];
        for await (const line of exportJsonl(view.ledger, { pageSize: 2 })) {
          lines.push(line);
          assert.equal(view.read, lines.filter((item) => item.startsWith('{"kind":"run"')).length);
        }
        const all: string[] = [];
        for await (const line of exportJsonl(inner)) all.push(line);
        assert.deepEqual(lines, all);
      }));

    it('replay evaluates each run as it reads it: the same totals as over runs it could keep', () =>
      withLedger(backend.open, async ({ ledger: inner }) => {
        await writeRuns(inner);
        const policies = [
          { name: 'none', guards: [] },
          { name: 'one-strike', guards: [{ humanGate: { n: 1 } }] },
        ];
        const view = streamOnly(inner);
        const streamed = await replayPolicies(view.ledger, policies);
        // Without a stream of its own, replay lists the runs and reads each apart (history.ts).
        const listing = wrapLedger(inner, { close: () => inner.close() });

        const kept = await replayPolicies(listing, policies);
        assert.deepEqual(streamed, kept);
        assert.equal(streamed[0]?.runs, RUNS);
        assert.ok((streamed[0]?.recordedAttempts ?? 0) > RUNS, 'the runs made several attempts each');
        assert.equal(view.read, RUNS);
      }));
  });
}
