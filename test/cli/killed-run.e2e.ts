import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { PID_NAMESPACE_VARIABLE, pidNamespace } from '../../src/process/pid-namespace.js';
import { answerMission } from '../helpers/answer-mission.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { allStarted, eventually, leaveBehind, noneLeft, runningWithArg, token } from '../process/liveness.js';
import { redline, ROOT } from './redline.js';

// `kill -9` of `redline run` while its agent runs: the built CLI in a process of its own, since the point is
// what outlives that process.

/**
 * Starts `redline run` with an agent that leaves three processes behind and then runs on itself, waits
 * until they all run, kills redline with SIGKILL and returns the token of their command lines.
 */
async function killRedlineMidAttempt(env: NodeJS.ProcessEnv): Promise<{ sleep: string; pid: number; ledger: string }> {
  const sleep = token();
  const marks = await tempWorkspace({});
  const file = await answerMission(await tempWorkspace({}), 'answer');
  const ledger = path.join(marks, 'ledger.db');
  const redline = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/redline.js'), 'run', file, '--ledger', ledger, '--agent', `${leaveBehind(sleep, marks)}; exec sleep ${sleep}`],
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
  await new Promise((resolve) =>
    redline.exitCode === null && redline.signalCode === null ? redline.once('exit', resolve) : resolve(null),
  );
  return { sleep, pid: redline.pid as number, ledger };
}

/** The run directories (in the default scratch directory) that process `pid` owns. */
const runDirectoriesOf = (pid: number): string[] => {
  const root = path.join(tmpdir(), 'redline-runs');
  if (!existsSync(root)) return [];
  // Other suites' runs come and go in the same folder meanwhile: one without its owner file yet, or being
  // removed, is not this process's.
  const owner = (name: string): string => {
    try {
      return readFileSync(path.join(root, name, 'owner.json'), 'utf8');
    } catch {
      return '';
    }
  };
  return readdirSync(root).filter((name) => owner(name).includes(`"pid":${pid}`));
};

/** The temporary directories process `pid` made in the temp folder (the agent's files, its programs' TMPDIR). */
const temporariesOf = (pid: number): string[] =>
  readdirSync(tmpdir()).filter((name) => name.startsWith('redline-') && name.includes(`-${pid}-`));

describe('kill -9 of redline run', () => {
  it('ends its agent and everything the agent started, within 2 seconds', async (t) => {
    const here = await pidNamespace();
    if (!here.available) return t.skip(here.reason);
    const { sleep, pid, ledger } = await killRedlineMidAttempt(process.env);
    assert.ok(await noneLeft(sleep), 'a process of the agent outlived redline');
    // What it could not remove, recovery does: its run is sealed, its run directory and temporary directories go.
    assert.notDeepEqual(temporariesOf(pid), [], 'the killed redline left no temporary directory to sweep');
    const recovered = await redline(['ledger', 'recover', '--ledger', ledger]);
    assert.equal(recovered.code, 0, recovered.stderr);
    assert.deepEqual(temporariesOf(pid), []);
    assert.deepEqual(runDirectoriesOf(pid), []);
  });

  it(`leaves them running with ${PID_NAMESPACE_VARIABLE}=off: the limit the note states`, async () => {
    const { sleep, ledger } = await killRedlineMidAttempt({ ...process.env, [PID_NAMESPACE_VARIABLE]: 'off' });
    try {
      // noneLeft ends what it finds still running.
      assert.ok(!(await noneLeft(sleep)), 'nothing outlived redline without a PID namespace');
    } finally {
      await redline(['ledger', 'recover', '--ledger', ledger]);
    }
  });
});
