import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { commandCheck } from '../../src/checks/command-check.js';
import { scopeCheck } from '../../src/checks/scope-check.js';
import { applyProposal, Baseline, EMPTY_CANDIDATE, type Candidate } from '../../src/core/candidate.js';
import type { Check } from '../../src/core/check.js';
import { checkCandidate } from '../../src/loop/check-candidate.js';
import { RunWorkspace } from '../../src/workspace/run-workspace.js';
import { entryDirOf } from '../../src/workspace/workspace-cache.js';
import { tempWorkspace } from '../helpers/workspace.js';

// Each check of a set is judged on what it saw: one whose snapshot or candidate paths changed while it
// ran counts for nothing, whoever changed them, except for the outputs it (or a check before it) declared.

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

const FILES = {
  'src/add.js': 'export const add = (a, b) => a - b;\n',
  'test/add.test.js': "assert.equal(add(2, 3), 5, 'adds');\n",
  'report.txt': 'tracked report\n',
};

/** A demand check running `command` in the copy. */
const demand = (name: string, command: string, outputs?: readonly string[]): Check => ({
  ...commandCheck({ name, command, tier: 'demand' }),
  ...(outputs === undefined ? {} : { outputs }),
});

/** Runs `checks` on `candidate` in a fresh run's check copy, as an attempt does. */
async function check(
  checks: readonly Check[],
  candidate: (baseline: Baseline) => Candidate = () => EMPTY_CANDIDATE,
  comparisons: string[] = [],
) {
  const workspace = await tempWorkspace(FILES);
  const scratchDir = await tempWorkspace({});
  dirs.push(workspace, scratchDir);
  const started = await RunWorkspace.start({ runId: 'check', workspace, scratchDir });
  // The copy as the attempt gets it, each comparison with the reset counted.
  const files = Object.assign(Object.create(started) as RunWorkspace, {
    checkSetEnded: () => started.checkSetEnded(),
    checkCopy: async (given: Parameters<RunWorkspace['checkCopy']>[0]) => {
      const copy = await started.checkCopy(given);
      return {
        ...copy,
        changedInputs: (isOutput: (file: string) => boolean) => {
          comparisons.push('compared');
          return copy.changedInputs(isOutput);
        },
      };
    },
  });
  try {
    const proposed = candidate(new Baseline((file) => files.snapshot.text(file)));
    const { findings } = await checkCandidate({
      checks,
      candidate: proposed,
      context: { goal: 'g', attempt: 1, signal: new AbortController().signal },
      files,
    });
    return findings.map((item) => ({ check: item.check, status: item.status, reasonCodes: item.reasonCodes, message: item.message }));
  } finally {
    await started.dispose();
  }
}

describe('checkCandidate: a check whose inputs changed while it ran', () => {
  it('compares the copy after each check that reads it, not after the scope check, and a later check still sees a change made before it', async () => {
    const comparisons: string[] = [];
    const findings = await check(
      [
        scopeCheck(['src/**']),
        demand('tamper', "printf 'tampered\\n' > test/add.test.js"),
        scopeCheck(['src/**']),
        demand('after', 'true'),
      ],
      undefined,
      comparisons,
    );
    assert.deepEqual(
      findings.map((item) => [item.check, item.status, item.reasonCodes.join()]),
      [
        ['scope', 'pass', ''],
        ['tamper', 'error', 'check.inputs_changed'],
        ['scope', 'pass', ''],
        ['after', 'error', 'check.inputs_changed'],
      ],
    );
    assert.equal(comparisons.length, 2, 'after tamper and after');
  });

  it('counts for nothing when its command rewrites a snapshot file mid-run: one check.inputs_changed error naming it', async () => {
    const [found] = await check([demand('tests', "sleep 0.05; printf 'assert.ok(true);\\n' > test/add.test.js; sleep 0.05")]);
    assert.deepEqual([found?.status, found?.reasonCodes], ['error', ['check.inputs_changed']]);
    assert.match(
      found?.message ?? '',
      /its result \(pass\) counts for nothing: test\/add\.test\.js \(paths a check rewrites itself are declared in its outputs\)$/,
    );
  });

  it('counts for nothing when it rewrites a candidate file, even with the same bytes', async () => {
    const fixed = (baseline: Baseline) =>
      applyProposal(EMPTY_CANDIDATE, { 'src/add.js': 'export const add = (a, b) => a + b;\n' }, undefined, baseline);
    const [found] = await check([demand('tests', 'cat src/add.js > src/add.js.new && mv src/add.js.new src/add.js')], fixed);
    assert.deepEqual([found?.status, found?.reasonCodes], ['error', ['check.inputs_changed']]);
    assert.match(found?.message ?? '', /: src\/add\.js \(/);
  });

  it('stands when the check rewrites only its declared outputs or creates files, and a later check is judged on what it saw', async () => {
    const rewrite = "printf 'fresh report\\n' > report.txt";
    const findings = await check([
      demand('report', rewrite, ['report.txt']),
      demand('cache', 'mkdir -p node_modules/.cache && echo cached > node_modules/.cache/run.json && echo tmp > src/add.js.tmp'),
      demand('tests', 'grep -q "fresh report" report.txt'),
    ]);
    assert.deepEqual(
      findings.map((item) => [item.check, item.status]),
      [
        ['report', 'pass'],
        ['cache', 'pass'],
        ['tests', 'pass'],
      ],
    );
    // The same rewrite, undeclared.
    const [undeclared] = await check([demand('report', rewrite)]);
    assert.deepEqual([undeclared?.status, undeclared?.reasonCodes], ['error', ['check.inputs_changed']]);
  });

  it('voids every check that ran on the changed copy, and only those: a check that ran before the change stands', async () => {
    const findings = await check([
      demand('first', 'true'),
      demand('tamper', "printf 'tampered\\n' > test/add.test.js"),
      demand('after', 'true'),
    ]);
    assert.deepEqual(
      findings.map((item) => [item.check, item.status, item.reasonCodes.join()]),
      [
        ['first', 'pass', ''],
        ['tamper', 'error', 'check.inputs_changed'],
        ['after', 'error', 'check.inputs_changed'],
      ],
    );
  });

  it('runs a set again when the copy an earlier run left was changed between the runs: the result is the snapshot’s, the rerun recorded', async () => {
    const run = await cachedRuns();
    // The test reads the file it tests: it passes only on the snapshot's bytes.
    const reads = [demand('reads', "grep -q 'a - b' src/add.js")];
    await run('one', reads);
    await sleep(20);
    const second = await run('two', reads);
    assert.deepEqual([second.findings[0]?.status, second.isolation?.rerun], ['pass', undefined]);
    // Between the runs, a process rewrites the file in the copy the runs share.
    writeFileSync(path.join(run.copy, 'src/add.js'), 'export const add = (a, b) => a + b;\n');
    const third = await run('three', reads);
    assert.deepEqual(
      third.findings.map((item) => [item.check, item.status, item.reasonCodes.join()]),
      [['reads', 'pass', '']],
    );
    assert.deepEqual([third.isolation?.rerun, third.isolation?.rerunRestored], [1, 1]);
  });

  it('compares the declared outputs before a set runs in a copy an earlier run left: one changed between the runs is undone first', async () => {
    const run = await cachedRuns();
    // The check reads its tracked report, declared as its output (it may write it, this time it does not):
    // a stale report must not pass it, and the walk after the check leaves declared outputs out.
    const readsReport = [demand('report', 'grep -q tracked report.txt', ['report.txt'])];
    await run('one', readsReport);
    await sleep(20);
    assert.equal((await run('two', readsReport)).findings[0]?.status, 'pass');
    writeFileSync(path.join(run.copy, 'report.txt'), 'stale\n');
    const third = await run('three', readsReport);
    assert.deepEqual(
      third.findings.map((item) => [item.check, item.status]),
      [['report', 'pass']],
    );
    // Undone by the reset before the set, not found after it.
    assert.deepEqual([third.isolation?.restored, third.isolation?.rerun], [1, undefined]);
  });
});

/** Runs of one workspace with a cache folder: each starts a run, checks the empty candidate, and ends it. */
async function cachedRuns() {
  const workspace = await tempWorkspace(FILES);
  const scratchDir = await tempWorkspace({});
  const cacheDir = await tempWorkspace({});
  dirs.push(workspace, scratchDir, cacheDir);
  const run = async (runId: string, checks: readonly Check[]) => {
    const files = await RunWorkspace.start({ runId, workspace, scratchDir, cacheDir });
    try {
      return await checkCandidate({
        checks,
        candidate: EMPTY_CANDIDATE,
        context: { goal: 'g', attempt: 0, signal: new AbortController().signal },
        files,
      });
    } finally {
      await files.dispose();
    }
  };
  // The check copy the runs share.
  return Object.assign(run, { copy: path.join(entryDirOf(cacheDir, realpathSync(workspace)), 'copy') });
}
