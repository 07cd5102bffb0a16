import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT } from '../cli/redline.js';
import { answerMission, ended, fleetSchema, SERVER, startWorker } from './fleet-helpers.js';

// Two "machines": worker processes with temporary directories of their own and no access to the
// submitter's workspace (deleted once submitted) run the submissions from the stored snapshots.
const AGENT = path.join(ROOT, 'test/fixtures/proposers/answer-agent.mjs');
const fleet = fleetSchema('redline_two_machines');
after(() => fleet.drop());

describe('two machines, no shared workspace', () => {
  it('run submitted missions to complete / verified from the stored blobs, shared across submissions', { timeout: 120_000 }, async () => {
    const dir = await tempWorkspace({});
    const files = [await answerMission(dir, 'one'), await answerMission(dir, 'two'), await answerMission(dir, 'three')];
    const submitted = await redline(['submit', ...files, '--postgres', fleet.url, '--proposer', `node ${AGENT}`, '--json']);
    assert.equal(submitted.code, 0, submitted.stderr);
    const lines = submitted.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { submission: string; newBlobs: number; reusedBlobs: number });
    // The three workspaces hold the same file: stored once.
    assert.deepEqual(
      lines.map((line) => [line.newBlobs, line.reusedBlobs]),
      [
        [1, 0],
        [0, 1],
        [0, 1],
      ],
    );
    await rm(dir, { recursive: true, force: true });

    const machines = await Promise.all([tempWorkspace({}), tempWorkspace({})]);
    const workers = machines.map((tmp) =>
      startWorker(['--postgres', fleet.url, '--concurrency', '2', '--until-idle', '--workdir', path.join(tmp, 'work')], {
        ...process.env,
        TMPDIR: tmp,
        REDLINE_SCRATCH: tmp,
      }),
    );
    assert.deepEqual(await Promise.all(workers.map(ended)), [0, 0], workers.map((worker) => worker.log.join('')).join('\n'));

    const ledger = await PostgresLedger.open({ connection: SERVER, schema: fleet.schema });
    try {
      const runs = await ledger.runs({});
      assert.deepEqual(runs.map((run) => run.runId).sort(), lines.map((line) => line.submission).sort());
      for (const run of runs) assert.deepEqual([run.outcome, run.verification], ['complete', 'verified']);
      assert.equal((await verifyLedger(ledger)).ok, true);
    } finally {
      await ledger.close();
    }
    const status = await redline(['status', '--postgres', fleet.url, '--json']);
    const fleetState = JSON.parse(status.stdout) as {
      jobs: { waiting: number; active: number };
      unsealedRuns: number;
      workers: { state: string }[];
    };
    assert.deepEqual([fleetState.jobs, fleetState.unsealedRuns], [{ waiting: 0, active: 0 }, 0]);
    assert.deepEqual(
      fleetState.workers.map((worker) => worker.state),
      ['stopped', 'stopped'],
    );
  });
});
