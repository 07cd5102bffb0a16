import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from './redline.js';

// `redline run` keeps the workspace's snapshot and check copy in a cache folder (a temp one here, never the
// user's): the next run says it reused the copy, `cache status` lists it, `cache prune` frees it.
const AGENT = `printf '%s' '{"files":{"src/add.js":"module.exports = (a, b) => a + b;\\n"}}'`;

async function addMission(): Promise<{ file: string; db: string; ws: string; cache: string }> {
  const dir = await tempWorkspace({
    'ws/src/add.js': 'module.exports = (a, b) => a - b;\n',
    'ws/test/add.test.js':
      "const test = require('node:test');\nconst assert = require('node:assert');\nconst add = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
  });
  const file = path.join(dir, 'mission.json');
  await writeFile(
    file,
    JSON.stringify({
      id: 'add',
      goal: 'make add add',
      workspace: 'ws',
      scope: ['src/**'],
      checks: [{ name: 'tests', kind: 'test-runner', command: 'node --test-reporter=tap test/add.test.js', format: 'tap' }],
    }),
  );
  return { file, db: path.join(dir, 'ledger.db'), ws: path.join(dir, 'ws'), cache: path.join(dir, 'cache') };
}

async function run(file: string, db: string, cache: string): Promise<{ runId: string; outcome: string }> {
  const result = await redline(['run', file, '--proposer', AGENT, '--ledger', db, '--no-review', '--cache-dir', cache, '--json']);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout.trim()) as { runId: string; outcome: string };
}

async function snapshotLine(db: string, runId: string): Promise<string> {
  const show = await redline(['ledger', 'show', runId, '--ledger', db]);
  assert.equal(show.code, 0, show.stderr);
  return /^ {2}snapshot .*$/m.exec(show.stdout)?.[0] ?? '';
}

describe('redline run with a cache folder, redline cache status|prune', () => {
  it('the second run reuses the copy, the one after an edit hashes only the edited file, and prune frees the folder', async () => {
    const { file, db, ws, cache } = await addMission();
    const first = await run(file, db, cache);
    assert.match(await snapshotLine(db, first.runId), /: 4 entries, 2 hashed, fresh copy, taken in \d+ ms$/);
    const second = await run(file, db, cache);
    // The first run's accepted candidate is undone in the copy: one path restored.
    assert.match(await snapshotLine(db, second.runId), /: 4 entries, 0 hashed, copy reused \(1 path restored\), taken in \d+ ms$/);
    writeFileSync(
      path.join(ws, 'test/add.test.js'),
      readFileSync(path.join(ws, 'test/add.test.js'), 'utf8').replace('add(2, 3), 5', 'add(1, 1), 2'),
    );
    const third = await run(file, db, cache);
    assert.match(await snapshotLine(db, third.runId), /: 4 entries, 1 hashed, copy reused \(2 paths restored\), taken in \d+ ms$/);

    const status = await redline(['cache', 'status', '--cache-dir', cache, '--json']);
    assert.equal(status.code, 0, status.stderr);
    const [entry] = status.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { workspace: string; bytes: number; entries: number; inUse: boolean });
    assert.equal(entry?.workspace, ws);
    assert.equal(entry?.entries, 4);
    assert.equal(entry?.inUse, false);
    assert.ok((entry?.bytes ?? 0) > 0);

    const prune = await redline(['cache', 'prune', '--all', '--cache-dir', cache]);
    assert.equal(prune.code, 0, prune.stderr);
    assert.match(prune.stderr, /1 entry removed, [\d.]+ \w+ freed/);
    assert.deepEqual(readdirSync(cache), []);
    const after = await run(file, db, cache);
    assert.equal(after.outcome, 'complete');
    assert.match(await snapshotLine(db, after.runId), /: 4 entries, 2 hashed, fresh copy, taken in \d+ ms$/);
    const verify = await redline(['ledger', 'verify', '--ledger', db]);
    assert.equal(verify.code, 0, verify.stderr);
  });

  it("says at each run's start how its snapshot was had: a fresh copy first, the cached copy reused next", async () => {
    const { file, db, cache } = await addMission();
    const lines: string[] = [];
    for (let round = 0; round < 2; round += 1) {
      const result = await redline(['run', file, '--proposer', AGENT, '--ledger', db, '--no-review', '--cache-dir', cache]);
      assert.equal(result.code, 0, result.stderr);
      lines.push(/^ {2}snapshot: .*$/m.exec(result.stderr)?.[0] ?? result.stderr);
    }
    assert.match(lines[0] ?? '', /^ {2}snapshot: 4 entries, 2 hashed, fresh copy · \d+ ms$/);
    assert.match(lines[1] ?? '', /^ {2}snapshot: 4 entries, 0 hashed, copy reused \(1 path restored\) · \d+ ms$/);
  });

  it('--no-cache writes a fresh copy and keeps nothing; prune and status take their options', async () => {
    const { file, db, cache } = await addMission();
    const result = await redline(['run', file, '--proposer', AGENT, '--ledger', db, '--no-review', '--no-cache', '--cache-dir', cache]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(readdirSync(path.dirname(cache)).includes('cache'), false);
    const bad = await redline(['cache', 'prune', '--older-than', 'soon', '--cache-dir', cache]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Expected an age such as 30m/);
    const help = await redline(['cache', 'prune', '--help']);
    assert.match(help.stdout, /--max-size <size>/);
  });
});
