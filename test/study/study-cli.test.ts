import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { progressLine, stopRulesCommand, type StopRulesCommandOptions } from '../../src/cli/study-command.js';
import { redline as redlineHere, spawnRedline } from '../cli/redline.js';
import { tempDir } from '../helpers/workspace.js';

// Runs the CLI in-process in a fresh directory, as a user would; the built CLI is spawned where what a
// shell sees is the point (exit 2, stderr without a stack trace, no progress display on a pipe).
const SMALL = ['--tasks-per-type', '12', '--seeds', '2', '--sigma', '0.05,0.15', '--warmup', '0,3,18', '--confidence', '0.9'];

/** `redline ARGS` run in `cwd` (in-process; the tests of this file run one at a time). */
async function redline(args: readonly string[], cwd: string): ReturnType<typeof redlineHere> {
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    return await redlineHere(args);
  } finally {
    process.chdir(previous);
  }
}

async function svgs(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  return Object.fromEntries(await Promise.all(files.map(async (file) => [file, await readFile(path.join(dir, file), 'utf8')] as const)));
}

describe('redline study stop-rules', () => {
  it('prints Markdown tables and writes SVG figures, byte-identical for the same seed', async () => {
    const [first, second] = [await tempDir('redline-study-'), await tempDir('redline-study-')];
    const a = spawnRedline(['study', 'stop-rules', ...SMALL], { cwd: first });
    const b = await redline(['study', 'stop-rules', ...SMALL], second);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(a.stdout, b.stdout);
    assert.equal(a.stderr, '', 'no progress display when stderr is not a terminal');
    for (const heading of [
      '# Stop rules under judge noise',
      '## σ = 0.05',
      '## σ = 0.15',
      "## Adaptive's cold start (σ = 0.1)",
      '## Noise-aware calibration',
      '## Figures',
    ]) {
      assert.ok(a.stdout.includes(`${heading}\n`), heading);
    }
    assert.match(a.stdout, /^\| confirm-2 \| \d\.\d\d ± \d\.\d\d \| \d+\.\d ± \d+\.\d \| \d+\.\d ± \d+\.\d \| 0\.\d{3} ± 0\.\d{3} \|$/m);
    assert.match(a.stdout, /!\[[^\]]+\]\(study-out\/reach-vs-sigma\.svg\)/);
    const figures = await svgs(path.join(first, 'study-out'));
    assert.deepEqual(Object.keys(figures), ['cold-start.svg', 'reach-vs-sigma.svg']);
    assert.deepEqual(await svgs(path.join(second, 'study-out')), figures);
    for (const svg of Object.values(figures)) assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    for (const strategy of ['threshold', 'confirm-2', 'noise-aware', 'min-of-two'])
      assert.ok(figures['reach-vs-sigma.svg']?.includes(`>${strategy}</text>`), strategy);
  });

  it('--json prints one JSON document of the documented shape, byte-identical for the same seed', async () => {
    const dir = await tempDir('redline-study-');
    const a = await redline(['study', 'stop-rules', ...SMALL, '--json'], dir);
    const b = await redline(['study', 'stop-rules', ...SMALL, '--json'], dir);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stdout, b.stdout);
    assert.equal(a.stdout.trimEnd().split('\n').length, 1);
    const study = JSON.parse(a.stdout);
    assert.deepEqual(Object.keys(study), ['config', 'results', 'coldStart', 'adaptiveCdvColdStart', 'noiseAware', 'verdicts']);
    assert.deepEqual(study.config.sigmas, [0.05, 0.15]);
    assert.deepEqual(Object.keys(study.results[0]), ['strategy', 'sigma', 'meanSteps', 'observedReach', 'trueReach', 'finalScore']);
    assert.deepEqual(Object.keys(study.results[0].meanSteps), ['mean', 'sd']);
    assert.deepEqual(await readdir(dir), [], 'no figures unless --out is given');
    assert.equal((await redline(['study', 'stop-rules', ...SMALL, '--json', '--out', 'figs'], dir)).stdout, a.stdout);
    assert.deepEqual((await readdir(path.join(dir, 'figs'))).sort(), ['cold-start.svg', 'reach-vs-sigma.svg']);
  });

  it('rejects bad option values with exit 2 and a one-line reason, no stack trace', async () => {
    const dir = await tempDir('redline-study-');
    const cases: [string[], RegExp][] = [
      [['--cap', '4'], /^redline: Expected --cap to be an integer in \[6, 64\], got 4\n$/],
      [['--seeds', 'many'], /^error: option '--seeds <n>' argument 'many' is invalid\. Expected an integer, got "many"\./],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = spawnRedline(['study', 'stop-rules', ...args], { cwd: dir });
      assert.equal(code, 2, args.join(' '));
      assert.equal(stdout, '');
      assert.match(stderr, message);
      assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
    }
  });

  it('--policy FILE runs its guard stacks as extra strategies after the built-in ones', async () => {
    const dir = await tempDir('redline-study-');
    await writeFile(
      path.join(dir, 'policies.yaml'),
      [
        'policies:',
        '  - name: bayes-first',
        '    guards: [{ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1 } }, { confirm: { k: 2, bar: 0.8 } }]',
        '  - name: my-confirm-2',
        '    guards: [{ confirm: { k: 2, bar: 0.8 } }]',
      ].join('\n'),
    );
    const json = await redline(['study', 'stop-rules', ...SMALL, '--policy', 'policies.yaml', '--json'], dir);
    assert.equal(json.code, 0, json.stderr);
    const study = JSON.parse(json.stdout) as { results: { strategy: string; sigma: number; trueReach: unknown }[] };
    assert.deepEqual(
      study.results.filter((row) => row.sigma === 0.15).map((row) => row.strategy),
      [
        ...['fixed-2', 'fixed-6', 'threshold', 'adaptive', 'adaptive-cold', 'adaptive-cdv', 'confirm-2', 'smooth-2', 'margin-0.05'],
        ...['noise-aware', 'min-of-two', 'bayes-first', 'my-confirm-2'],
      ],
    );
    const reach = (strategy: string) => study.results.find((row) => row.strategy === strategy && row.sigma === 0.15)?.trueReach;
    assert.deepEqual(reach('my-confirm-2'), reach('confirm-2'));
    const markdown = await redline(['study', 'stop-rules', ...SMALL, '--policy', 'policies.yaml', '--out', 'figs'], dir);
    assert.equal(markdown.code, 0, markdown.stderr);
    assert.match(markdown.stdout, /^- bayes-first \(--policy\): the attempt budget, then \{"noiseAware":/m);
    assert.match(markdown.stdout, /^\| bayes-first \| \d\.\d\d ± \d\.\d\d \|/m);
  });

  it('refuses a bad --policy file with exit 2, naming the file and what is wrong, before the study runs', async () => {
    const dir = await tempDir('redline-study-');
    await writeFile(path.join(dir, 'typo.yaml'), 'policies:\n  - name: x\n    guards: [{ confirm: { k: 0, bar: 0.8 } }]\n');
    await writeFile(path.join(dir, 'clash.json'), JSON.stringify({ name: 'threshold', guards: [] }));
    const cases: [string, RegExp][] = [
      ['typo.yaml', /^redline: Invalid policy file typo\.yaml:\n {2}- policies\[0\]\.guards\[0\]\.confirm\.k: .+\n$/],
      [
        'clash.json',
        /^redline: Expected --policy to be policies named apart from the built-in strategies and from each other, got policies\[0\]\.name "threshold"\n$/,
      ],
      ['missing.yaml', /^redline: Invalid policy file missing\.yaml:\n {2}- \(root\): ENOENT/],
    ];
    for (const [file, message] of cases) {
      const { code, stdout, stderr } = await redline(['study', 'stop-rules', ...SMALL, '--policy', file], dir);
      assert.equal(code, 2, file);
      assert.equal(stdout, '');
      assert.match(stderr, message);
    }
    assert.deepEqual(await readdir(dir), ['clash.json', 'typo.yaml'], 'no figures: nothing ran');
  });

  it('names the flag, what it expected and what it got for every out-of-range option', async () => {
    const output = { print: () => assert.fail('printed a result'), progress: () => undefined };
    const cases: [StopRulesCommandOptions, string][] = [
      [{ sigma: [0, 0.1] }, 'Expected --sigma to be a non-empty list of numbers in (0, 1], got [0, 0.1]'],
      [{ seeds: 0 }, 'Expected --seeds to be an integer in [1, 10000], got 0'],
      [{ seed: -1 }, 'Expected --seed to be an integer in [0, 2147483647], got -1'],
      [{ tasksPerType: 0 }, 'Expected --tasks-per-type to be an integer in [1, 100000], got 0'],
      [{ bar: 2 }, 'Expected --bar to be a number in (0, 1], got 2'],
      [
        { tasksPerType: 10, warmup: [0, 40] },
        'Expected --warmup to be a non-empty list of integers in [0, 15] (the training half), got [0, 40]',
      ],
      [{ confidence: [0.5, 1] }, 'Expected --confidence to be a list of numbers in (0, 1), got [0.5, 1]'],
    ];
    for (const [options, message] of cases) {
      await assert.rejects(
        stopRulesCommand(options, output, { stream: { write: () => assert.fail('progress') } }),
        (error: unknown) => error instanceof TypeError && error.message === message,
      );
    }
  });
});

describe('progressLine', () => {
  const sink = (isTTY: boolean) => {
    const written: string[] = [];
    let time = 0;
    return { written, tick: (ms: number) => (time += ms), stream: { isTTY, write: (text: string) => written.push(text) }, now: () => time };
  };

  it('shows nothing in the first 300 ms, then rewrites one line, and erases it at the end', () => {
    const { written, tick, stream, now } = sink(true);
    const progress = progressLine({ stream, now });
    progress.update({ done: 1, total: 4 });
    assert.deepEqual(written, []);
    tick(301);
    progress.update({ done: 2, total: 4 });
    progress.clear();
    assert.deepEqual(written, ['\rstop-rules study: 2/4 cells (50%)', '\r\x1b[K']);
  });

  it('writes nothing when the stream is not a terminal, or when it finished quickly', () => {
    const pipe = sink(false);
    const piped = progressLine({ stream: pipe.stream, now: pipe.now });
    pipe.tick(1000);
    piped.update({ done: 1, total: 2 });
    piped.clear();
    const quick = sink(true);
    const fast = progressLine({ stream: quick.stream, now: quick.now });
    fast.update({ done: 2, total: 2 });
    fast.clear();
    assert.deepEqual([pipe.written, quick.written], [[], []]);
  });
});
