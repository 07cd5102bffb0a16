import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { PID_NAMESPACE_VARIABLE, pidNamespace } from '../../src/process/pid-namespace.js';
import { answerMission } from '../helpers/answer-mission.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { leaveBehind, noneLeft, token } from '../process/liveness.js';
import { redline, ROOT } from './redline.js';

const AGENT = path.join(ROOT, 'test/fixtures/proposers/answer-agent.sh');

/** Runs the answer mission (by `proposer`); its run.started record's `pidNamespace`, and what the run said on stderr. */
async function run(proposer = ['--proposer', `sh ${AGENT}`]): Promise<{ recorded: unknown; stderr: string }> {
  const dir = await tempWorkspace({});
  const file = await answerMission(dir, 'answer');
  const { code, stdout, stderr } = await redline(['run', file, ...proposer, '--json']);
  assert.equal(code, 0, stderr);
  const ledger = await SqliteLedger.open({ database: path.join(dir, '.redline/redline.db') });
  try {
    const [started] = await ledger.records(JSON.parse(stdout).runId as string);
    assert.equal(started?.type, 'run.started');
    return { recorded: started?.type === 'run.started' ? started.data.pidNamespace : undefined, stderr };
  } finally {
    await ledger.close();
  }
}

describe('redline run and PID namespaces', () => {
  it('leaves nothing an agent started running after its attempt, without the sandbox: env -i setsid, nohup and setsid children', async (t) => {
    const here = await pidNamespace();
    if (!here.available) return t.skip(here.reason);
    const sleep = token();
    const marks = await tempWorkspace({});
    await run(['--agent', `${leaveBehind(sleep, marks)}; echo 42 > src/answer.txt`]);
    assert.ok(await noneLeft(sleep), 'a process the agent started outlived its attempt');
  });

  it('records whether its programs ran in PID namespaces, and says once on stderr when they did not', async () => {
    const here = await pidNamespace();
    const usual = await run();
    assert.deepEqual(usual.recorded, here);
    assert.equal(usual.stderr.includes('without a PID namespace'), !here.available);

    process.env[PID_NAMESPACE_VARIABLE] = 'off';
    try {
      const off = await run();
      const reason = `turned off by ${PID_NAMESPACE_VARIABLE}=off`;
      assert.deepEqual(off.recorded, { available: false, reason });
      const notes = off.stderr.split('\n').filter((line) => line.includes('without a PID namespace'));
      assert.deepEqual(notes, [
        `note: programs run without a PID namespace here (${reason}); outside sandbox: bwrap, a process that clears its environment can outlive its attempt, and a killed redline leaves what it started running`,
      ]);
      // Found while the run's modules load, and still said before anything the run says.
      const spoken = await redline(['run', await answerMission(await tempWorkspace({}), 'answer'), '--proposer', `sh ${AGENT}`]);
      assert.deepEqual(
        spoken.stderr
          .split('\n')
          .slice(0, 2)
          .map((line) => line.split(' ')[0]),
        ['note:', 'mission'],
      );
    } finally {
      delete process.env[PID_NAMESPACE_VARIABLE];
    }
  });
});
