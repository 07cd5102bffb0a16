import assert from 'node:assert/strict';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PostgresLedger } from '../../src/ledger/postgres/postgres-ledger.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { redline } from '../cli/redline.js';
import { answerMission, fleetSchema, SERVER, submitterKey } from './fleet-helpers.js';

// A worker keeps one directory per submitted workspace: the next submission of it rewrites only what
// changed, the run's cache finds the same workspace and hashes little, and the checks see exactly the new
// manifest — also after the directory was tampered with, and when two submissions of it run at once.
const fleet = fleetSchema('redline_reuse');
after(() => fleet.drop());

const PROPOSER = `sleep 1; printf '%s' '{"files":{"src/answer.txt":"42\\n"}}'`;

interface Started {
  readonly copy: string;
  readonly hashed: number;
}

/** The mission `reuse` over `<dir>/reuse/`, whose second check expects the files it lists and what edit.txt holds. */
async function mission(dir: string, files: string[], edit: string): Promise<string> {
  return answerMission(dir, 'reuse', {
    checks: [
      { name: 'answer', kind: 'expected-output', command: 'cat src/answer.txt', expected: '42' },
      {
        name: 'tree',
        kind: 'expected-output',
        command: "find . -type f | sort | tr '\\n' ' '; cat edit.txt",
        expected: `${files.map((file) => `./${file}`).join(' ')} ${edit}`,
      },
    ],
  });
}

async function submit(file: string, sign: string[]): Promise<string> {
  const done = await redline(['submit', file, '--postgres', fleet.url, '--proposer', PROPOSER, '--json', ...sign]);
  assert.equal(done.code, 0, done.stderr);
  return (JSON.parse(done.stdout) as { submission: string }).submission;
}

async function work(workdir: string, trust: string[], concurrency = 1): Promise<string> {
  const done = await redline([
    'worker',
    '--postgres',
    fleet.url,
    '--until-idle',
    '--concurrency',
    String(concurrency),
    '--workdir',
    workdir,
    '--no-review',
    ...trust,
  ]);
  assert.equal(done.code, 0, done.stderr);
  return done.stderr;
}

/** Each run's outcome and what its run.started says of its workspace. */
async function runs(ids: string[]): Promise<Map<string, { outcome: string; workspace: Started }>> {
  const ledger = await PostgresLedger.open({ connection: SERVER, schema: fleet.schema });
  try {
    const result = new Map<string, { outcome: string; workspace: Started }>();
    for (const id of ids) {
      const [row] = await ledger.runs({ runId: id });
      const started = (await ledger.records(id)).find((record) => record.type === 'run.started');
      result.set(id, { outcome: String(row?.outcome), workspace: started?.data.workspace as Started });
    }
    return result;
  } finally {
    await ledger.close();
  }
}

const FILLER = Array.from({ length: 30 }, (_, index) => `lib/f${String(index).padStart(2, '0')}.txt`);

describe('a worker given the same workspace again', { timeout: 180_000 }, () => {
  it('reuses its directory: only the changes are written and hashed, the checks see exactly each manifest, tampering is repaired', async () => {
    const dir = await tempWorkspace({});
    const keys = submitterKey(await tempWorkspace({}));
    const workdir = path.join(dir, 'work');
    const ws = path.join(dir, 'reuse');
    const write = (file: string, text: string): void => {
      writeFileSync(path.join(ws, file), text);
    };
    // answerMission writes src/answer.txt; the rest is ours.
    await mission(dir, [], '');
    await mkdir(path.join(ws, 'lib'), { recursive: true });
    for (const name of FILLER) write(name, `${name}\n`);
    write('edit.txt', 'v1');
    write('del.txt', 'deleted next\n');
    let file = await mission(dir, ['del.txt', 'edit.txt', ...FILLER, 'src/answer.txt'], 'v1');
    const first = await submit(file, keys.sign);
    const log1 = await work(workdir, keys.trust);
    assert.match(log1, new RegExp(`${first} complete · workspace new \\(`));

    write('edit.txt', 'v2');
    rmSync(path.join(ws, 'del.txt'));
    write('added.txt', 'new\n');
    file = await mission(dir, ['added.txt', 'edit.txt', ...FILLER, 'src/answer.txt'], 'v2');
    const second = await submit(file, keys.sign);
    const log2 = await work(workdir, keys.trust);
    // edit.txt and added.txt written, del.txt removed, the 30 fillers and src/answer.txt kept.
    assert.match(log2, new RegExp(`${second} complete · workspace reused \\(2 written, 1 removed, 31 kept\\)`), log2);

    // Between submissions someone changes the directory: a file's bytes, and a stray file.
    const [home] = readdirSync(path.join(workdir, '.workspaces'));
    const tree = path.join(workdir, '.workspaces', String(home), 'tree');
    writeFileSync(path.join(tree, 'lib/f03.txt'), 'tampered\n');
    writeFileSync(path.join(tree, 'stray.txt'), 'not submitted\n');
    await writeFile(path.join(ws, 'edit.txt'), 'v3');
    file = await mission(dir, ['added.txt', 'edit.txt', ...FILLER, 'src/answer.txt'], 'v3');
    const third = await submit(file, keys.sign);
    const log3 = await work(workdir, keys.trust);
    assert.match(log3, new RegExp(`${third} complete · workspace reused \\(2 written, 1 removed, 31 kept, 1 repaired\\)`), log3);

    const done = await runs([first, second, third]);
    for (const [id, run] of done) assert.equal(run.outcome, 'complete', id);
    assert.equal(done.get(first)?.workspace.copy, 'fresh');
    assert.equal(done.get(first)?.workspace.hashed, 33);
    // The run's cache finds the same workspace path: its copy is reset, and only what was rewritten is read.
    for (const id of [second, third]) {
      assert.equal(done.get(id)?.workspace.copy, 'reused', id);
      assert.ok((done.get(id)?.workspace.hashed ?? Infinity) <= 4, `${id} hashed ${done.get(id)?.workspace.hashed}`);
    }
  });

  it('runs two submissions of one workspace at once: one in its directory, the other in a fresh one, both as submitted', async () => {
    const dir = await tempWorkspace({});
    const keys = submitterKey(await tempWorkspace({}));
    const ws = path.join(dir, 'reuse');
    await mission(dir, [], '');
    writeFileSync(path.join(ws, 'edit.txt'), 'one');
    let file = await mission(dir, ['edit.txt', 'src/answer.txt'], 'one');
    const one = await submit(file, keys.sign);
    writeFileSync(path.join(ws, 'edit.txt'), 'two');
    writeFileSync(path.join(ws, 'more.txt'), 'more');
    file = await mission(dir, ['edit.txt', 'more.txt', 'src/answer.txt'], 'two');
    const two = await submit(file, keys.sign);
    const log = await work(path.join(dir, 'work'), keys.trust, 2);
    const done = await runs([one, two]);
    assert.equal(done.get(one)?.outcome, 'complete', log);
    assert.equal(done.get(two)?.outcome, 'complete', log);
    const lines = log.split('\n').filter((line) => line.includes(`${one} complete`) || line.includes(`${two} complete`));
    assert.equal(lines.length, 2, log);
    assert.equal(lines.filter((line) => / · workspace new \(/.test(line)).length, 1, log);
  });
});
