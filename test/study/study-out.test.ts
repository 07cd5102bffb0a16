import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { handoffCommand, stopRulesCommand } from '../../src/cli/study-command.js';
import { runHandoffStudy, writeHandoffFigure } from '../../src/study/handoff/index.js';
import { runStopRulesStudy, StudyOptionError, writeFigures } from '../../src/study/index.js';
import { tempDir } from '../helpers/workspace.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/redline.js');
const SMALL = { tasksPerType: 12, seeds: 2, sigma: [0.1], warmup: [0, 3], confidence: [0.9] };
const silent = { print: () => assert.fail('printed a result'), progress: () => undefined };
const noProgress = { stream: { write: () => assert.fail('the study ran') } };

/** A directory holding `notes.md`, a regular file that must survive every refusal. */
async function withFile(): Promise<{ dir: string; file: string }> {
  const dir = await tempDir('redline-study-out-');
  const file = path.join(dir, 'notes.md');
  await writeFile(file, 'keep me\n');
  return { dir, file };
}

describe('study --out that cannot be a directory', () => {
  it('stop-rules refuses a regular file and a path under one before running the study, naming --out', async () => {
    const { dir, file } = await withFile();
    for (const [out, got] of [
      [file, `"${file}", which is a file`],
      [path.join(file, 'figures'), `"${path.join(file, 'figures')}", under the file ${file}`],
    ] as const) {
      for (const json of [false, true]) {
        await assert.rejects(
          stopRulesCommand({ ...SMALL, out, json }, silent, noProgress),
          (error: unknown) =>
            error instanceof TypeError &&
            error.message === `Expected --out to be a directory, or a path where one can be created, got ${got}`,
        );
      }
    }
    assert.equal(await readFile(file, 'utf8'), 'keep me\n');
    assert.deepEqual(await readdir(dir), ['notes.md']);
  });

  it('handoff refuses them the same way', async () => {
    const { file } = await withFile();
    await assert.rejects(handoffCommand({ out: file }, silent), {
      name: 'TypeError',
      message: `Expected --out to be a directory, or a path where one can be created, got "${file}", which is a file`,
    });
    await assert.rejects(handoffCommand({ out: path.join(file, 'x', 'y'), json: true }, silent), /under the file/);
    assert.equal(await readFile(file, 'utf8'), 'keep me\n');
  });

  it('the figure writers throw a StudyOptionError for option "out", not EEXIST or ENOTDIR', async () => {
    const { file } = await withFile();
    const study = await runStopRulesStudy({ tasksPerType: 12, seeds: 1, sigmas: [0.1], warmup: [0, 3], confidences: [0.9] });
    await assert.rejects(
      writeFigures({ study, dir: file }),
      (error: unknown) => error instanceof StudyOptionError && error.option === 'out' && /which is a file/.test(error.got),
    );
    await assert.rejects(
      writeHandoffFigure({ study: runHandoffStudy({ minutes: 10 }), dir: path.join(file, 'sub') }),
      (error: unknown) => error instanceof StudyOptionError && error.option === 'out' && /under the file/.test(error.got),
    );
  });

  it('a figure name taken by a directory is a StudyOptionError naming the file, not EISDIR', async () => {
    const { dir } = await withFile();
    await mkdir(path.join(dir, 'handoff-depth.svg'));
    await assert.rejects(
      writeHandoffFigure({ study: runHandoffStudy({ minutes: 10 }), dir }),
      (error: unknown) => error instanceof StudyOptionError && error.got === `"${dir}" (EISDIR writing handoff-depth.svg)`,
    );
  });

  it('the built CLI exits 2 with one line on stderr and no stack trace', async () => {
    const { dir, file } = await withFile();
    for (const args of [
      ['stop-rules', '--tasks-per-type', '12', '--seeds', '1', '--out', 'notes.md'],
      ['handoff', '--out', 'notes.md/figures'],
    ]) {
      const { status, stdout, stderr } = spawnSync(process.execPath, [BIN, 'study', ...args], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(status, 2, stderr);
      assert.equal(stdout, '');
      assert.match(
        stderr,
        /^redline: Expected --out to be a directory, or a path where one can be created, got "notes\.md(\/figures)?", (which is a file|under the file \S+notes\.md)\n$/,
      );
    }
    assert.equal(await readFile(file, 'utf8'), 'keep me\n');
  });
});
