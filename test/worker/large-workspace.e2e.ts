import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tempWorkspace } from '../helpers/workspace.js';
import { ROOT } from '../cli/redline.js';
import { answerMission, fleetSchema, submitterKey } from './fleet-helpers.js';

// A large file travels through the database part by part: it comes back byte for byte, and neither
// `submit` nor the worker holds it whole (their peak RSS, measured in the child, stays far below a few
// times its size).
const fleet = fleetSchema('redline_large');
after(() => fleet.drop());

const MiB = 1024 * 1024;
const SIZE = 40 * MiB;
const PROPOSER = `printf '%s' '{"files":{"src/answer.txt":"42\\n"}}'`;

/** Each CLI child writes its peak resident set (KiB, `process.resourceUsage().maxRSS`) to $REDLINE_TEST_RSS as it exits. */
const HOOK = `data:text/javascript,${encodeURIComponent(
  'import { writeFileSync } from "node:fs"; process.on("exit", () => writeFileSync(process.env.REDLINE_TEST_RSS, String(process.resourceUsage().maxRSS)));',
)}`;

/** Runs the built CLI with `args` to its end: its exit code, stderr and peak RSS in bytes. */
async function measured(args: readonly string[], rssFile: string): Promise<{ code: number | null; stderr: string; rss: number }> {
  const result = spawnSync(process.execPath, ['--import', HOOK, path.join(ROOT, 'bin/redline.js'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, REDLINE_TEST_RSS: rssFile },
  });
  return { code: result.status, stderr: result.stderr, rss: Number(await readFile(rssFile, 'utf8')) * 1024 };
}

async function sha256(file: string): Promise<string> {
  const digest = createHash('sha256');
  for await (const chunk of createReadStream(file)) digest.update(chunk as Buffer);
  return digest.digest('hex');
}

describe('a 40 MB file in a submitted workspace', () => {
  it('round-trips byte for byte, with submit and the worker each far below 5x its size in memory', { timeout: 180_000 }, async () => {
    const dir = await tempWorkspace({});
    const key = submitterKey(dir);
    const file = await answerMission(dir, 'large');
    const big = path.join(dir, 'large/data/big.bin');
    await mkdir(path.dirname(big));
    // Random bytes: nothing for PostgreSQL's compression to shrink.
    await writeFile(big, randomBytes(SIZE));
    const submit = await measured(
      ['submit', file, '--postgres', fleet.url, '--proposer', PROPOSER, '--json', ...key.sign],
      path.join(dir, 'submit.rss'),
    );
    assert.equal(submit.code, 0, submit.stderr);
    const worker = await measured(
      ['worker', '--postgres', fleet.url, '--until-idle', '--workdir', path.join(dir, 'work'), '--no-review', ...key.trust],
      path.join(dir, 'worker.rss'),
    );
    assert.equal(worker.code, 0, worker.stderr);
    assert.match(worker.stderr, / complete · /);
    // The submission's folder; its `workspace` links to the worker's reused tree in `.workspaces/`.
    const [id] = readdirSync(path.join(dir, 'work')).filter((name) => !name.startsWith('.'));
    assert.equal(await sha256(path.join(dir, 'work', id ?? '', 'workspace/data/big.bin')), await sha256(big));
    process.stdout.write(
      `# peak RSS with a ${SIZE / MiB} MiB file: submit ${Math.round(submit.rss / MiB)} MiB, worker ${Math.round(worker.rss / MiB)} MiB\n`,
    );
    assert.ok(submit.rss < 5 * SIZE, `submit peaked at ${Math.round(submit.rss / MiB)} MiB`);
    assert.ok(worker.rss < 5 * SIZE, `the worker peaked at ${Math.round(worker.rss / MiB)} MiB`);
  });
});
