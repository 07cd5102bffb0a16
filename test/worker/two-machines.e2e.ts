import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline, ROOT } from '../cli/redline.js';
import { setTimeout as delay } from 'node:timers/promises';
import { answerMission, ended, fleetSchema, SERVER, startWorker, submitterKey } from './fleet-helpers.js';

// Two "machines": worker processes with temporary directories of their own and no access to the
// submitter's workspace (deleted once submitted) run the submissions from the stored snapshots.
const AGENT = path.join(ROOT, 'test/fixtures/proposers/answer-agent.sh');
const fleet = fleetSchema('redline_two_machines');
const takeover = fleetSchema('redline_takeover');
after(() => Promise.all([fleet.drop(), takeover.drop()]));

/** A worker "machine": a temporary directory of its own for its work, its temporary files and its run copies. */
async function machine(): Promise<{ dir: string; env: NodeJS.ProcessEnv }> {
  const dir = await tempWorkspace({});
  return { dir, env: { ...process.env, TMPDIR: dir, REDLINE_SCRATCH: dir } };
}

describe('two machines, no shared workspace', () => {
  it('run submitted missions to complete / verified from the stored blobs, shared across submissions', { timeout: 120_000 }, async () => {
    const dir = await tempWorkspace({});
    const files = [await answerMission(dir, 'one'), await answerMission(dir, 'two'), await answerMission(dir, 'three')];
    const key = submitterKey(await tempWorkspace({}));
    const submitted = await redline(['submit', ...files, '--postgres', fleet.url, '--proposer', `sh ${AGENT}`, '--json', ...key.sign]);
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
      startWorker(['--postgres', fleet.url, '--concurrency', '2', '--until-idle', '--workdir', path.join(tmp, 'work'), ...key.trust], {
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
      // `admit` works from any machine: a checkout of the same workspace elsewhere takes run one's candidate.
      const checkout = await tempWorkspace({ 'src/answer.txt': '0\n' });
      const admitted = await redline(['admit', lines[0]!.submission, '--ledger', fleet.url, '--to', checkout]);
      assert.equal(admitted.code, 0, admitted.stderr);
      assert.equal(await readFile(path.join(checkout, 'src/answer.txt'), 'utf8'), '42\n');
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

describe('a run whose machine died', () => {
  it('is resumed on another machine, from its own copy of the submission, to complete / verified', { timeout: 120_000 }, async () => {
    const dir = await tempWorkspace({});
    const key = submitterKey(await tempWorkspace({}));
    // Slow enough that the first machine dies while attempt 1 is being proposed.
    const proposer = `node -e "setTimeout(() => process.stdout.write(JSON.stringify({files:{'src/answer.txt':'42\\\\n'}})), 3000)"`;
    const submitted = await redline([
      'submit',
      await answerMission(dir, 'slow'),
      '--postgres',
      takeover.url,
      '--proposer',
      proposer,
      '--lease',
      '2',
      '--json',
      ...key.sign,
    ]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const { submission } = JSON.parse(submitted.stdout) as { submission: string };
    await rm(dir, { recursive: true, force: true });

    const [first, second] = await Promise.all([machine(), machine()]);
    const ledger = await PostgresLedger.open({ connection: SERVER, schema: takeover.schema });
    try {
      const doomed = startWorker(
        ['--postgres', takeover.url, '--lease', '2', '--workdir', path.join(first.dir, 'work'), ...key.trust],
        first.env,
      );
      // Killed once the run has started and checked its baseline: attempt 1 is under way.
      for (let waited = 0; (await ledger.records(submission)).length < 2; waited += 100) {
        assert.ok(waited < 60_000, `the first machine never started the run: ${doomed.log.join('')}`);
        await delay(100);
      }
      doomed.kill('SIGKILL');
      await ended(doomed);
      // The dead machine's disk goes with it.
      await rm(first.dir, { recursive: true, force: true });
      const rescuer = startWorker(
        ['--postgres', takeover.url, '--lease', '2', '--until-idle', '--workdir', path.join(second.dir, 'work'), ...key.trust],
        second.env,
      );
      assert.equal(await ended(rescuer), 0, rescuer.log.join(''));
      assert.match(rescuer.log.join(''), new RegExp(`${submission} complete \\(resumed\\)`));
      const [run] = await ledger.runs({ runId: submission });
      assert.deepEqual([run?.outcome, run?.verification], ['complete', 'verified']);
      const types = (await ledger.records(submission)).map((record) => record.type);
      assert.ok(types.includes('run.resumed'), types.join(', '));
      assert.equal(types.filter((type) => type === 'run.sealed').length, 1);
      assert.equal((await verifyLedger(ledger)).ok, true);
    } finally {
      await ledger.close();
    }
  });
});
