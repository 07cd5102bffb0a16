import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runHandoffStudy, type HandoffSeedsStudy, type ReviewRateStudy } from '../../src/study/handoff/index.js';
import { meanSd } from '../../src/study/stats.js';
import { redline } from '../cli/redline.js';
import { tempDir } from '../helpers/workspace.js';

const tempFile = async (name: string, text: string): Promise<string> => {
  const file = path.join(await tempDir('redline-handoff-cli-'), name);
  await writeFile(file, text);
  return file;
};

describe('redline study handoff, calibrated', () => {
  it('prints the same default JSON as before the study could be calibrated', async () => {
    const { code, stdout } = await redline(['study', 'handoff', '--json']);
    assert.equal(code, 0);
    // The output of `redline study handoff --json` before --config, --seeds and the model options existed.
    assert.equal(createHash('sha256').update(stdout).digest('hex'), 'd11e4bd3a98df4d0488cb6daee6a6bc108749f99d0a43f35f8d116323c25360c');
  });

  it('takes the configuration from a file, with flags over it', async () => {
    const file = await tempFile(
      'handoff.json',
      JSON.stringify({
        minutes: 60,
        capacity: 20,
        tuner: { window: 5, min: 2, max: 9 },
        approveProbability: { good: 1, minor: 1, critical: 1 },
        configs: [{ name: 'mine', productionRate: 3, reviewRate: 2, burstProbability: 0 }],
      }),
    );
    const { code, stdout } = await redline(['study', 'handoff', '--config', file, '--review-rate', '4', '--json']);
    assert.equal(code, 0);
    const rows = JSON.parse(stdout) as ReturnType<typeof runHandoffStudy>;
    assert.deepEqual(
      rows.map((row) => [row.config, row.variant, row.productionRate, row.reviewRate, row.capacity, row.depth.length, row.finalLimit]),
      [
        ['mine', 'simple', 3, 4, 20, 61, 9],
        ['mine', 'protocol', 3, 4, 20, 61, 9],
      ],
    );
    const markdown = await redline(['study', 'handoff', '--config', file, '--out', path.dirname(file)]);
    assert.match(markdown.stdout, /approve with probability 1 \/ 1 \/ 1/);
    assert.match(markdown.stdout, /bounded \[2, 9\]/);
  });

  it('makes one configuration, custom, from rate flags', async () => {
    const { stdout } = await redline(['study', 'handoff', '--production-rate', '4', '--burst-factor', '2', '--json']);
    const rows = JSON.parse(stdout) as ReturnType<typeof runHandoffStudy>;
    assert.deepEqual(
      rows,
      runHandoffStudy({ configs: [{ name: 'custom', productionRate: 4, reviewRate: 3, burstProbability: 0.015 }], burstFactor: 2 }),
    );
  });

  it('refuses an invalid file with exit 2, naming the field and the file', async () => {
    const file = await tempFile('bad.yaml', 'tuner:\n  min: 6\n  max: 4\n');
    const bad = await redline(['study', 'handoff', '--config', file]);
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /Expected `tuner\.max` in ".*bad\.yaml" to be an integer in \[6, 10000\], got 4/);

    const unknown = await redline(['study', 'handoff', '--config', await tempFile('odd.json', '{"configs":[{"name":"x","rate":3}]}')]);
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /Expected `configs\[0\]` in ".*odd\.json" to be an object with only the fields name, productionRate, reviewRate, burstProbability, got the field "rate"/,
    );

    const missing = await redline(['study', 'handoff', '--config', path.join(tmpdir(), 'no-such-handoff.json')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /Expected --config to be a readable JSON or YAML file, got .*ENOENT/);

    const flag = await redline(['study', 'handoff', '--config', file, '--tuner-max', '5']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /Expected --tuner-max to be an integer in \[6, 10000\], got 5/);
    const watermark = await redline(['study', 'handoff', '--high', '0.2']);
    assert.match(watermark.stderr, /Expected --low to be a number in \[0, 0\.2\)/);
  });

  it('--seeds N reports mean ± sd and when the tuner first reaches each bound', async () => {
    const { code, stdout } = await redline(['study', 'handoff', '--seeds', '3', '--json']);
    assert.equal(code, 0);
    const study = JSON.parse(stdout) as HandoffSeedsStudy;
    assert.deepEqual([study.seed, study.seeds, study.rows.length], [1, 3, 8]);
    const d = study.rows.find((row) => row.config === 'D' && row.variant === 'simple');
    assert.deepEqual(d?.overflowPct, meanSd([1, 2, 3].map((seed) => runHandoffStudy({ seed })[6]?.overflowPct ?? Number.NaN)));
    const markdown = await redline(['study', 'handoff', '--seeds', '3']);
    assert.match(markdown.stdout, /## When the tuner first reaches its bounds/);
    assert.match(markdown.stdout, /\| A \| simple \| .+ \| [\d.]+ ± [\d.]+ \(\d\/3; \d+–\d+\) \|/);
    const out = await redline(['study', 'handoff', '--seeds', '3', '--out', tmpdir()]);
    assert.equal(out.code, 2);
  });

  it('--solve-review-rate answers the reviewer rate for a production rate', async () => {
    const { code, stdout } = await redline([
      'study',
      'handoff',
      '--production-rate',
      '6',
      '--solve-review-rate',
      '2',
      '--seeds',
      '4',
      '--json',
    ]);
    assert.equal(code, 0);
    const { solutions, targetPct, seeds } = JSON.parse(stdout) as ReviewRateStudy;
    assert.deepEqual([targetPct, seeds, solutions.length], [2, 4, 1]);
    const rate = solutions[0]?.reviewRate as number;
    const overflow = (reviewRate: number): number =>
      meanSd(
        [1, 2, 3, 4].map(
          (seed) =>
            runHandoffStudy({ seed, configs: [{ name: 'custom', productionRate: 6, reviewRate, burstProbability: 0.015 }] })[0]
              ?.overflowPct ?? 0,
        ),
      ).mean;
    assert.ok(overflow(rate) <= 2 && overflow(rate - 1) > 2, `${rate}/min is the smallest rate keeping overflow at most 2%`);
    const markdown = await redline(['study', 'handoff', '--solve-review-rate', '5']);
    assert.match(markdown.stdout, /averaged over seeds 1–10, is at most 5 %/);
    assert.match(markdown.stdout, /\| B \| 5 \| 0\.015 \| \d+ \|/);
    assert.equal((await redline(['study', 'handoff', '--solve-review-rate', '150'])).code, 2);
  });
});
