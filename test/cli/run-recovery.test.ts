import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCommand, type Output } from '../../src/cli/run-command.js';
import type { Ledger, LedgerRecord } from '../../src/ledger/ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { loadMission } from '../../src/mission/load.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { dyingAfter } from '../helpers/ledgers.js';

// `redline run` recovers only its own mission's crashed runs whose process is known to be gone (issue 10
// item 8), and leaves the rest to `redline ledger recover`.

/** A mission file whose replay proposer (declared, so recovery can resume it) ends at its attempt budget. */
async function missionFile(dir: string, id: string): Promise<string> {
  await writeFile(path.join(dir, `${id}.replay.json`), JSON.stringify([{ value: { nom: 1 } }, { value: { name: 'a' } }]));
  const file = path.join(dir, `${id}.json`);
  await writeFile(
    file,
    JSON.stringify({
      id,
      goal: 'shape a value',
      budgets: { maxAttempts: 2 },
      stopPolicy: { guards: [] },
      proposer: { kind: 'replay', file: `${id}.replay.json` },
      checks: [{ name: 'shape', kind: 'json-schema', schema: { type: 'object', required: ['name'] } }],
    }),
  );
  return file;
}

/** Starts a run of the mission in `file` that "dies" (this process's pid: a gone process to recovery) after two records. */
async function crashedRun(ledger: Ledger, file: string): Promise<string> {
  let runId = '';
  await assert.rejects(
    runMission({ mission: await loadMission(file), ledger: dyingAfter(ledger, 2), onRecord: (record) => (runId = record.runId) }),
    /process killed/,
  );
  return runId;
}

describe('redline run: recovery before the run', () => {
  it("recovers only its own mission's runs whose process is gone, says how they ended, and points to ledger recover for the rest", async () => {
    const dir = await tempWorkspace({});
    const mine = await missionFile(dir, 'mine');
    const other = await missionFile(dir, 'other');
    const location = path.join(dir, 'ledger.db');
    const ledger = await SqliteLedger.open({ database: location, synchronous: 'off' });
    const crashedMine = await crashedRun(ledger, mine);
    const crashedOther = await crashedRun(ledger, other);
    // A run of this mission whose process ran on another host: it may be alive there.
    const started = (await ledger.records(crashedMine))[0] as LedgerRecord;
    await ledger.append({ ...started, runId: 'remote', data: { ...started.data, owner: { host: 'elsewhere.invalid', pid: 1 } } });
    await ledger.close();

    const progress: string[] = [];
    const print: string[] = [];
    const output: Output = { print: (line) => print.push(line), progress: (line) => progress.push(line) };
    assert.equal(await runCommand(mine, { ledger: location, json: true }, output), 1);

    assert.ok(progress.includes(`recovered run ${crashedMine}: resumed, sealed blocked / no_demand_signal`), progress.join('\n'));
    assert.ok(progress.includes(`2 other unsealed runs: run \`redline ledger recover --ledger ${location}\``), progress.join('\n'));
    assert.ok(!progress.some((line) => line.includes(crashedOther) || line.includes('remote')), progress.join('\n'));
    const after = await SqliteLedger.open({ database: location });
    try {
      assert.deepEqual((await after.runs({ unsealed: true })).map((run) => run.runId).sort(), [crashedOther, 'remote'].sort());
      assert.equal((await after.records(crashedOther)).length, 2, "the other mission's run is left as it was: its proposer did not run");
      assert.equal((await after.runs({ runId: crashedMine }))[0]?.sealed, true);
    } finally {
      await after.close();
    }
  });
});
