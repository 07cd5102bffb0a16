import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempWorkspace } from '../helpers/workspace.js';

// Drives the built CLI (`npm test` builds first): the exit code and stderr are what is tested.
const BIN = path.resolve(import.meta.dirname, '../../bin/redline.js');

async function run(mission: Record<string, unknown>): Promise<{ code: number | null; stderr: string; file: string; dir: string }> {
  const dir = await tempWorkspace({ 'ws/a.txt': 'a\n' });
  const file = path.join(dir, 'mission.json');
  await writeFile(file, JSON.stringify({ id: 'cli-mission', goal: 'g', workspace: 'ws', ...mission }));
  const result = spawnSync(process.execPath, [BIN, 'run', file, '--proposer', 'true'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stderr: result.stderr, file, dir };
}

describe('redline run refuses a mission that cannot work, exit 2, before recording anything', () => {
  it('a scope glob that can never match names the glob, with no stack trace', async () => {
    const { code, stderr, file, dir } = await run({ scope: ['src/**', '../**'], budgets: { maxWallClock: '99999999999999h' } });
    assert.equal(code, 2, stderr);
    assert.equal(existsSync(path.join(dir, '.redline')), false, 'no ledger was created');
    assert.equal(
      stderr,
      `redline: Invalid mission ${file}:\n  - scope[1]: "../**" leaves the workspace: a candidate path never has a ".." segment\n  - budgets.maxWallClock: Expected a duration of at most 365 days ("8760h", 31536000000 ms), got "99999999999999h"\n`,
    );
  });

  it('a missing workspace names the mission file and the resolved path', async () => {
    const { code, stderr, file, dir } = await run({ workspace: '../no-such-repo' });
    assert.equal(code, 2, stderr);
    assert.equal(
      stderr,
      `redline: Invalid mission ${file}:\n  - workspace: the workspace "../no-such-repo" (resolved against the mission file to ${path.join(path.dirname(dir), 'no-such-repo')}) is missing\n`,
    );
  });
});
