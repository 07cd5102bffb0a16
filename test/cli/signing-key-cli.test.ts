import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { answerMission } from '../helpers/answer-mission.js';
import { tempDir, tempWorkspace } from '../helpers/workspace.js';
import { redline } from './redline.js';

/** Runs `work` with `dir` as the working directory, as a user who `cd`s there. */
async function inDirectory<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const previous = process.cwd();
  process.chdir(dir);
  try {
    return await work();
  } finally {
    process.chdir(previous);
  }
}

describe('the signing key lives with the ledger', () => {
  it('a relative --ledger from another directory than the mission: the key is created beside the ledger, and verify checks the seal with it', async () => {
    const missionDir = await tempWorkspace({
      'right.mjs': "process.stdout.write(JSON.stringify({ files: { 'src/answer.txt': '42\\n' } }));\n",
    });
    const mission = await answerMission(missionDir, 'keyed');
    const cwd = await tempDir('redline-cwd-');
    await inDirectory(cwd, async () => {
      const run = await redline([
        'run',
        mission,
        '--proposer',
        `node ${path.join(missionDir, 'right.mjs')}`,
        '--ledger',
        'rel.db',
        '--json',
      ]);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(existsSync(path.join(cwd, 'rel.db')), 'the ledger opened in the working directory');
      assert.ok(existsSync(path.join(cwd, 'signing-key.pem')), 'the key beside it');
      assert.equal(existsSync(path.join(missionDir, 'signing-key.pem')), false, 'no key beside the mission');

      const verify = await redline(['ledger', 'verify', '--ledger', 'rel.db']);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /seal signatures: 1 valid, 0 invalid, 0 unsigned — checked with the local key\(s\)/);
      assert.doesNotMatch(verify.stdout, /another key/);
      const required = await redline(['ledger', 'verify', '--ledger', 'rel.db', '--require-signatures']);
      assert.equal(required.code, 0, required.stdout + required.stderr);
    });
  });
});
