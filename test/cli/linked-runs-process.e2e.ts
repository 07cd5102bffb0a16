import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ANSWER_AGENT as ANSWER, gatedMission, runIdOf } from '../helpers/gated-mission.js';
import { spawnRedline } from './redline.js';

// The process boundary of linked runs: what a shell sees from the built CLI (exit codes, stderr without a
// stack trace). The same behaviour in-process is test/cli/linked-runs.test.ts.
describe('linked runs through the built CLI (real processes)', () => {
  it('a same-plan rerun refused with exit 2 and no stack trace, and a changed-plan linked run accepted', async () => {
    const { dir, file, wrong } = await gatedMission();
    const ledger = path.join(dir, 'ledger.db');
    const first = spawnRedline(['run', file, '--proposer', wrong, '--json', '--ledger', ledger]);
    assert.equal(first.code, 1, first.stderr);
    const old = runIdOf(first.stdout);
    const refused = spawnRedline(['run', file, '--proposer', wrong, '--ledger', ledger]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^redline: refused to rerun the same plan on mission gated/m);
    assert.match(refused.stderr, new RegExp(`--resolves ${old} with a changed plan`));
    assert.doesNotMatch(refused.stderr, /\n\s+at /);
    const accepted = spawnRedline([
      'run',
      file,
      '--proposer',
      `sh ${ANSWER}`,
      '--resolves',
      old,
      '--note',
      'hint reader',
      '--json',
      '--ledger',
      ledger,
    ]);
    assert.equal(accepted.code, 0, accepted.stderr);
    const lineage = spawnRedline(['ledger', 'show', '--lineage', old, '--ledger', ledger]);
    assert.equal(lineage.code, 0, lineage.stderr);
    assert.match(lineage.stdout, new RegExp(`└ run ${runIdOf(accepted.stdout)} — complete / demand_passed.* — hint reader`));
  });
});
