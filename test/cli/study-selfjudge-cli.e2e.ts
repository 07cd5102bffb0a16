import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BOUNDARY_TASKS, PUBLISHED_TASKS } from '../../src/study/selfjudge/tasks.js';
import { startOpenAIStub, type OpenAIStub } from '../../src/testing/openai-stub-server.js';
import { readyPython3 } from '../helpers/python.js';
import { FIXES } from '../study/selfjudge-boundary-fixes.js';
import { CODE, correctButSaysNo, scriptedModel } from '../study/selfjudge-scripted-models.js';
import { redline } from './redline.js';
import { tempDir } from '../helpers/workspace.js';

const skip = readyPython3();

/** Answers the published protocol's questions: right code for a proposal, NO for the self-judge. */
function publishedModel(body: unknown): string {
  const prompt = (body as { messages: { content: string }[] }).messages[0]!.content;
  if (prompt.startsWith('以下代码满足任务要求吗?')) return 'NO';
  const task = Object.keys(CODE).find((name) => prompt.includes(`${name}(`))!;
  return `\`\`\`python\n${CODE[task]!.right}\`\`\``;
}

describe('redline study redline-vs-selfjudge', { skip }, () => {
  let dir: string;
  before(async () => {
    dir = await tempDir('redline-selfjudge-cli-');
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a published-format task file under A and B, records every trial, and stop-quality selects them', async () => {
    const stub: OpenAIStub = await startOpenAIStub({ respond: scriptedModel(correctButSaysNo) });
    try {
      const file = path.join(dir, 'tasks.json');
      await writeFile(
        file,
        JSON.stringify({
          tasks: [{ id: 'even', desc: 'Write is_even(n).', test_stmt: 'print(is_even(4)); print(is_even(3))', expected: 'True\nFalse' }],
        }),
      );
      const ledger = path.join(dir, 'ledger.db');
      const base = ['study', 'redline-vs-selfjudge', '--task-file', file, '--model', 'scripted', '--base-url', stub.baseURL];
      const json = await redline([...base, '--trials', '2', '--max-attempts', '2', '--ledger', ledger, '--json']);
      assert.equal(json.code, 0, json.stderr);
      const study = JSON.parse(json.stdout);
      assert.deepEqual(study.config.tasks, ['even']);
      assert.equal(study.trials.length, 4);
      const b = study.cells.find((cell: { task: string; condition: string }) => cell.task === 'even' && cell.condition === 'selfjudge');
      assert.deepEqual(b.falseNegatives, { count: 2, n: 2, rate: 1, low: 0.3424, high: 1 });
      assert.deepEqual(b.attempts, [2, 2]);

      const quality = await redline(['report', 'stop-quality', '--task-type', study.taskTypes.selfjudge, '--ledger', ledger, '--json']);
      assert.equal(quality.code, 0, quality.stderr);
      const all = JSON.parse(quality.stdout).all;
      // B's runs never stopped as done, yet the shadow tests passed on the code they stopped on: missed stops.
      assert.equal(all.runs, 2);
      assert.equal(all.trueReached, 2);
      assert.equal(all.missedReached, 2);

      const markdown = await redline([...base, '--trials', '1', '--max-attempts', '1', '--ledger', ledger, '--out', path.join(dir, 'out')]);
      assert.equal(markdown.code, 0, markdown.stderr);
      assert.match(markdown.stdout, /\| even \| B self-judge \| ✓ \| 1 \|/);
      assert.match(markdown.stdout, /Fisher exact p = 1: no result of this size can show a difference/);
      assert.match(await readFile(path.join(dir, 'out', 'redline-vs-selfjudge.svg'), 'utf8'), /^<svg/);
    } finally {
      await stub.close();
    }
  });

  it('--task-set boundary reports fix-loop success by attempt for syntax and logic errors', async () => {
    // Fixes a syntax error at once; a logic error only once the failing finding has been seen.
    const stub = await startOpenAIStub({
      respond: (body) => {
        const prompt = (body as { messages: { role: string; content: string }[] }).messages.at(-1)?.content ?? '';
        const task = BOUNDARY_TASKS.find((item) => prompt.includes(item.desc))!;
        const sawFailure = prompt.includes('output.mismatch') && prompt.includes('# Latest candidate');
        const code = task.taskClass === 'syntax' || sawFailure ? FIXES[task.id] : task.code;
        return JSON.stringify({ files: { 'solution.py': code } });
      },
    });
    try {
      const result = await redline([
        ...['study', 'redline-vs-selfjudge', '--task-set', 'boundary', '--model', 'scripted', '--base-url', stub.baseURL],
        ...['--trials', '1', '--max-attempts', '3', '--ledger', path.join(dir, 'boundary.db'), '--json'],
      ]);
      assert.equal(result.code, 0, result.stderr);
      const study = JSON.parse(result.stdout);
      assert.deepEqual(study.config.conditions, ['redline']);
      const byClass = Object.fromEntries(
        study.byClass.map((row: { taskClass: string; byAttempt: { count: number }[] }) => [
          row.taskClass,
          row.byAttempt.map((p) => p.count),
        ]),
      );
      assert.deepEqual(byClass, { syntax: [5, 5, 5], logic: [0, 6, 6] });
    } finally {
      await stub.close();
    }
  });

  it('--protocol published sends the script’s prompts, records them in every trial and says so in the report', async () => {
    const stub = await startOpenAIStub({ respond: publishedModel });
    try {
      const base = ['study', 'redline-vs-selfjudge', '--protocol', 'published', '--model', 'scripted', '--base-url', stub.baseURL];
      const ledger = path.join(dir, 'published.db');
      const json = await redline([...base, '--trials', '1', '--steps', '2', '--ledger', ledger, '--json']);
      assert.equal(json.code, 0, json.stderr);
      const study = JSON.parse(json.stdout);
      assert.deepEqual(
        [study.config.protocol, study.config.injectTests, study.config.maxAttempts, study.config.proposer],
        ['published', false, 2, 'model:scripted'],
      );
      const prompts = (stub.requests as { messages: { role: string; content: string }[] }[]).map((body) => body.messages);
      assert.ok(prompts.every((messages) => messages.length === 1 && messages[0]!.role === 'user'));
      // Trial by trial, the study's record of each prompt is the very text the model received.
      const recorded = study.trials.flatMap((trial: { prompts: { prompt: string }[] }) => trial.prompts.map((item) => item.prompt));
      assert.deepEqual(
        recorded,
        prompts.map((messages) => messages[0]!.content),
      );
      assert.equal(recorded[0], `写 Python 代码。${PUBLISHED_TASKS[0]!.desc}\n只输出代码,不要解释。`);
      assert.deepEqual(study.cells.at(-2).attempts, [1, 1, 1], 'A: right code at once');

      const markdown = await redline([
        ...base,
        '--inject-tests',
        '--trials',
        '1',
        '--steps',
        '1',
        '--ledger',
        ledger,
        '--out',
        path.join(dir, 'pub'),
      ]);
      assert.equal(markdown.code, 0, markdown.stderr);
      assert.match(
        markdown.stdout,
        /self-judge prompt published, protocol published \(the script's prompts, parsing and test; tests injected\)\./,
      );
    } finally {
      await stub.close();
    }
  });

  it('--help names the protocols, the article’s defaults and the cue the redline protocol gives B', async () => {
    // Commander wraps the help to the terminal's width: read it as one line.
    const help = (await redline(['study', 'redline-vs-selfjudge', '--help'])).stdout.replace(/\s+/g, ' ');
    for (const text of [
      '--protocol <name>',
      'published-en',
      '--inject-tests',
      '--steps <n>',
      'default 3, the published article',
      'Failing findings: None.',
    ])
      assert.ok(help.includes(text), text);
    assert.match(
      (await redline(['study', '--help'])).stdout.replace(/\s+/g, ' '),
      /--protocol published sends the published script's own prompts/,
    );
  });

  it('refuses flags a published protocol cannot honour, with exit 2 and the flag named', async () => {
    const base = [
      'study',
      'redline-vs-selfjudge',
      '--model',
      'm',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--ledger',
      path.join(dir, 'z.db'),
    ];
    const cases: [string[], string][] = [
      [['--protocol', 'published-zh'], 'Expected --protocol to be redline, published or published-en, got "published-zh"'],
      [['--inject-tests'], 'Expected --inject-tests to be false under the redline protocol, got true'],
      [['--protocol', 'published', '--judge-prompt', 'finish'], 'Expected no --judge-prompt under --protocol published'],
      [['--protocol', 'published-en', '--proposer', 'x'], 'Expected no --proposer under --protocol published-en'],
      [['--steps', '3', '--max-attempts', '3'], 'Expected one of --steps or --max-attempts, got both'],
      [['--protocol', 'published', '--task-set', 'boundary'], 'Expected --task-set or --task-file to be code tasks written from scratch'],
    ];
    for (const [args, message] of cases) {
      const result = await redline([...base, ...args]);
      assert.equal(result.code, 2, args.join(' '));
      assert.ok(result.stderr.includes(message), result.stderr);
    }
  });

  it('refuses a bad option with exit 2, naming the flag', async () => {
    const result = await redline(['study', 'redline-vs-selfjudge', '--trials', '0', '--ledger', path.join(dir, 'y.db')]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--trials/);
    const noModel = await redline(['study', 'redline-vs-selfjudge', '--ledger', path.join(dir, 'x.db')]);
    assert.equal(noModel.code, 2);
    assert.match(noModel.stderr, /--model and --base-url/);
  });
});
