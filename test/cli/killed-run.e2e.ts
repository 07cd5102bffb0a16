import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PID_NAMESPACE_VARIABLE, pidNamespace } from '../../src/process/pid-namespace.js';
import { answerMission } from '../helpers/answer-mission.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { allStarted, eventually, leaveBehind, noneLeft, runningWithArg, token } from '../process/liveness.js';
import { ROOT } from './redline.js';

// `kill -9` of `redline run` while its agent runs: the built CLI in a process of its own, since the point is
// what outlives that process.

/**
 * Starts `redline run` with an agent that leaves three processes behind and then runs on itself, waits
 * until they all run, kills redline with SIGKILL and returns the token of their command lines.
 */
async function killRedlineMidAttempt(env: NodeJS.ProcessEnv): Promise<string> {
  const sleep = token();
  const marks = await tempWorkspace({});
  const file = await answerMission(await tempWorkspace({}), 'answer');
  const redline = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/redline.js'), 'run', file, '--agent', `${leaveBehind(sleep, marks)}; exec sleep ${sleep}`],
    {
      env,
      stdio: 'ignore',
    },
  );
  try {
    assert.ok(await eventually(() => allStarted(marks), 30_000), 'the agent did not start its processes');
    // The agent itself, and the three it left behind.
    assert.ok(runningWithArg(sleep).length >= 4, `running: ${runningWithArg(sleep).join(', ')}`);
  } finally {
    redline.kill('SIGKILL');
  }
  return sleep;
}

describe('kill -9 of redline run', () => {
  it('ends its agent and everything the agent started, within 2 seconds', async (t) => {
    const here = await pidNamespace();
    if (!here.available) return t.skip(here.reason);
    const sleep = await killRedlineMidAttempt(process.env);
    assert.ok(await noneLeft(sleep), 'a process of the agent outlived redline');
  });

  it(`leaves them running with ${PID_NAMESPACE_VARIABLE}=off: the limit the note states`, async () => {
    const sleep = await killRedlineMidAttempt({ ...process.env, [PID_NAMESPACE_VARIABLE]: 'off' });
    assert.ok(!(await noneLeft(sleep)), 'nothing outlived redline without a PID namespace');
  });
});
