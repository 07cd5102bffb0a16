import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from '../cli/redline.js';
import { answerMission, ended, fleetSchema, SERVER, startWorker, submitterKey } from './fleet-helpers.js';

// The fault test: 4 worker processes take the submitted missions while a supervisor SIGKILLs a
// random worker every 3 s (the first after 1 s) and starts another. At the end every mission is sealed exactly once, every
// chain verifies and no run is left unsealed. CI (`.ci/run`, CI=true) runs the 500 missions
// (33 s on 2 cores); a local run 150, enough for the fleet to still be busy at the second kill (12, and 60,
// were all sealed within 4 s, before it). REDLINE_FAULT_MISSIONS sets any other number.
const MISSIONS = Number(process.env.REDLINE_FAULT_MISSIONS ?? (process.env.CI === 'true' ? 500 : 150));
/** How long the fleet may take: 1.5 s a mission, at least 200 s (a loaded machine starts workers slowly). */
const DEADLINE_MS = Number(process.env.REDLINE_FAULT_DEADLINE_MS ?? Math.max(200_000, MISSIONS * 1_500));
const WORKERS = 4;
/** A worker process needs a second or two to start on a loaded machine: killing faster would only ever kill starting workers. */
const KILL_EVERY_MS = 3000;
/** The first kill comes sooner: a fleet as fast as this machine's seals 150 missions in about 7 s. */
const FIRST_KILL_MS = 1000;
const fleet = fleetSchema('redline_fault');
after(() => fleet.drop());

/** A fast command proposer: the shell prints the answer at once (one attempt, one check; no Node start per mission). */
const PROPOSER = `printf '%s' '{"files":{"src/answer.txt":"42\\n"}}'`;

describe('many workers on PostgreSQL, one killed every few seconds', () => {
  it(
    `seals each of ${MISSIONS} missions exactly once, every chain verifying, none left unsealed`,
    { timeout: DEADLINE_MS + 60_000 },
    async () => {
      const dir = await tempWorkspace({});
      const file = await answerMission(dir, 'fault');
      const key = submitterKey(dir);
      const submitted = await redline([
        'submit',
        ...Array.from({ length: MISSIONS }, () => file),
        '--postgres',
        fleet.url,
        '--proposer',
        PROPOSER,
        '--lease',
        '2',
        '--json',
        ...key.sign,
      ]);
      assert.equal(submitted.code, 0, submitted.stderr);
      const ids = submitted.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { submission: string }).submission);
      assert.equal(new Set(ids).size, MISSIONS);

      const workdir = path.join(dir, 'work');
      const args = ['--postgres', fleet.url, '--concurrency', '2', '--lease', '2', '--workdir', workdir, ...key.trust];
      const workers: (ChildProcess & { log: string[] })[] = Array.from({ length: WORKERS }, () => startWorker(args));
      const ledger = await PostgresLedger.open({ connection: SERVER, schema: fleet.schema });
      let kills = 0;
      let stopped: (number | string | null)[] | undefined;
      try {
        const deadline = Date.now() + DEADLINE_MS;
        for (;;) {
          const runs = await ledger.runs({});
          if (runs.length === MISSIONS && runs.every((run) => run.sealed)) break;
          assert.ok(
            Date.now() < deadline,
            `${runs.filter((run) => run.sealed).length} of ${MISSIONS} sealed before the deadline; a worker said: ${workers.map((worker) => worker.log.join('')).join('\n')}`,
          );
          await delay(kills === 0 ? FIRST_KILL_MS : KILL_EVERY_MS);
          const victim = Math.floor(Math.random() * WORKERS);
          workers[victim]?.kill('SIGKILL');
          await ended(workers[victim] as ChildProcess);
          kills += 1;
          workers[victim] = startWorker(args);
        }
      } finally {
        for (const worker of workers) worker.kill('SIGTERM');
        stopped = await Promise.all(workers.map(ended));
      }
      try {
        assert.ok(kills >= 2, `the supervisor killed ${kills} workers`);
        // SIGTERM ends every worker without an error exit: 0 once it drained, or the signal itself for one
        // still loading its modules (no handler yet, nothing held).
        assert.deepEqual(
          stopped?.filter((code) => code !== 0 && code !== 'SIGTERM'),
          [],
        );
        const runs = await ledger.runs({});
        assert.deepEqual(runs.map((run) => run.runId).sort(), [...ids].sort());
        assert.deepEqual(await ledger.runs({ unsealed: true }), []);
        for (const run of runs) {
          const records = await ledger.records(run.runId);
          assert.equal(records.filter((record) => record.type === 'run.sealed').length, 1, `run ${run.runId} has one seal`);
        }
        const report = await verifyLedger(ledger);
        assert.equal(report.ok, true);
        assert.equal(report.runs, MISSIONS);
        const outcomes = new Set(runs.map((run) => `${run.outcome}/${run.stopReason}`));
        // A run whose worker died is resumed to its seal (or sealed crashed): nothing else ends one here.
        for (const outcome of outcomes) assert.match(outcome, /^(complete\/demand_passed|failed_with_evidence\/crashed)$/);
      } finally {
        await ledger.close();
      }
    },
  );
});
