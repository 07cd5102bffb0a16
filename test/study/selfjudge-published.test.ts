import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modelProposer } from '../../src/ai-sdk/model-proposer.js';
import { modelAsk, temperatureZeroModel } from '../../src/ai-sdk/model-ask.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { recordsOf } from '../../src/ledger/run-records.js';
import { StudyOptionError } from '../../src/study/study-option-error.js';
import { extractCode, firstCodePoints } from '../../src/study/selfjudge/published-prompts.js';
import { publishedPrompt, publishedYes } from '../../src/study/selfjudge/published-roles.js';
import { runSelfJudgeStudy, type SelfJudgeStudyOptions } from '../../src/study/selfjudge/run-selfjudge-study.js';
import { PUBLISHED_TASKS, type CodeTask } from '../../src/study/selfjudge/tasks.js';
import { startOpenAIStub, type StubReply } from '../../src/testing/openai-stub-server.js';
import { readyPython3 } from '../helpers/python.js';
import { CODE } from './selfjudge-scripted-models.js';

const skip = readyPython3();
const IS_EVEN = PUBLISHED_TASKS[0] as CodeTask;
const DESC = IS_EVEN.desc;
const { right: RIGHT, wrong: WRONG } = CODE.is_even!;
/** Exits 3 after one line on stderr: a failed program whose stderr is the same on every Python. */
const FAILING = 'import sys\nsys.stderr.write("boom: odd input\\n")\nsys.exit(3)';

type Body = { messages: { role: string; content: unknown }[]; temperature?: number; max_tokens?: number };

/** Runs the study on is_even against the stub, answering in `replies` order; returns the study, the requests and the ledger. */
async function study(replies: readonly StubReply[], options: Partial<SelfJudgeStudyOptions>) {
  const stub = await startOpenAIStub({ replies });
  try {
    const ask = modelAsk(temperatureZeroModel({ baseURL: stub.baseURL, model: 'scripted' }));
    const ledger = new MemoryLedger();
    const result = await runSelfJudgeStudy({
      tasks: [{ kind: 'code', task: IS_EVEN }],
      ask,
      ledger,
      trials: 1,
      proposerName: 'model:scripted',
      _internal: { generateId: () => 'p1' },
      ...options,
    });
    return { result, ledger, requests: stub.requests as Body[] };
  } finally {
    await stub.close();
  }
}

/** The one user message of a request, which must be all it holds: the script sends no system prompt. */
function userMessage(body: Body): string {
  assert.equal(body.messages.length, 1, JSON.stringify(body.messages));
  assert.equal(body.messages[0]!.role, 'user');
  return body.messages[0]!.content as string;
}

describe('the published protocol', { skip }, () => {
  it('sends the script’s Chinese prompts byte for byte, parses its answers and records every prompt in the trial', async () => {
    const replies = [
      // A: wrong code in a fenced block among prose, then a failing program, then right code (bare, padded).
      `Here you go:\n\`\`\`python\n${WRONG}\`\`\`\nDone.`,
      `\`\`\`\n${FAILING}\n\`\`\``,
      `\n\n${RIGHT}\n`,
      // B: right code, the judge says NO; then wrong code, the judge says yes.
      RIGHT,
      'NO',
      WRONG,
      ' yes, it does',
    ];
    const { result, ledger, requests } = await study(replies, { protocol: 'published', maxAttempts: 3 });
    const wrong = WRONG.trim();
    const right = RIGHT.trim();
    const expectedPrompts = [
      `写 Python 代码。${DESC}\n只输出代码,不要解释。`,
      `修复错误。${DESC}\n错误: 输出不符。期望: True\nFalse\n输出完整代码。`,
      `修复错误。${DESC}\n错误: boom: odd input\n输出完整代码。`,
      `写 Python 代码。${DESC}\n只输出代码,不要解释。`,
      `以下代码满足任务要求吗?${DESC}\n---\n${right}\n---\n只回答 YES 或 NO。`,
      `改进代码。${DESC}\n上次代码:\n${right}\n输出改进后的完整代码。`,
      `以下代码满足任务要求吗?${DESC}\n---\n${wrong}\n---\n只回答 YES 或 NO。`,
    ];
    const sent = requests.map(userMessage);
    assert.deepEqual(
      sent.map((text) => Buffer.from(text, 'utf8').toString('hex')),
      expectedPrompts.map((text) => Buffer.from(text, 'utf8').toString('hex')),
    );
    assert.ok(requests.every((body) => body.temperature === 0));
    assert.deepEqual(
      requests.map((body) => body.max_tokens),
      [1024, 1024, 1024, 1024, 10, 1024, 10],
    );

    const [a, b] = result.trials;
    assert.deepEqual(
      a!.prompts?.map(({ attempt, to, prompt, answer }) => [attempt, to, prompt, answer]),
      [
        [1, 'proposer', expectedPrompts[0], replies[0]],
        [2, 'proposer', expectedPrompts[1], replies[1]],
        [3, 'proposer', expectedPrompts[2], replies[2]],
      ],
    );
    assert.deepEqual(
      b!.prompts?.map(({ attempt, to, prompt }) => [attempt, to, prompt]),
      [
        [1, 'proposer', expectedPrompts[3]],
        [1, 'judge', expectedPrompts[4]],
        [2, 'proposer', expectedPrompts[5]],
        [2, 'judge', expectedPrompts[6]],
      ],
    );
    assert.deepEqual([a!.attempts, a!.converged, a!.truth], [3, true, ['fail', 'fail', 'pass']]);
    assert.deepEqual([b!.attempts, b!.saidYes, b!.converged, b!.truth], [2, true, false, ['pass', 'fail']]);
    assert.deepEqual([b!.falsePositive, b!.falseNegative, b!.degraded], [true, true, true]);
    assert.deepEqual(result.config, {
      taskSet: 'published',
      tasks: ['is_even'],
      conditions: ['redline', 'selfjudge'],
      trials: 1,
      maxAttempts: 3,
      judgePrompt: 'published',
      proposer: 'model:scripted',
      protocol: 'published',
      injectTests: false,
    });
    // The runs hold what the prompts were built from: the parsed code, and the stderr as the failing finding.
    const attempts = recordsOf(await ledger.records(a!.runId), 'attempt');
    assert.deepEqual(
      attempts.map((record) => record.data.candidate?.files['solution.py']),
      [wrong, FAILING, right],
    );
    assert.equal(attempts[1]!.data.findings?.find((item) => item.check === 'tests')?.message, 'boom: odd input');
  });

  it('published-en sends the English rendering; --inject-tests adds the test to the proposer’s prompts only', async () => {
    const { requests, result } = await study([WRONG, RIGHT, 'NO'], { protocol: 'published-en', injectTests: true, maxAttempts: 1 });
    const desc = `${DESC}\nTest: print(is_even(4)); print(is_even(3))\nExpected output: True\nFalse`;
    assert.deepEqual(requests.map(userMessage), [
      `Write Python code. ${desc}\nOutput only the code, no explanation.`,
      `Write Python code. ${desc}\nOutput only the code, no explanation.`,
      `Does the following code satisfy the task requirements? ${DESC}\n---\n${RIGHT.trim()}\n---\nAnswer only YES or NO.`,
    ]);
    assert.deepEqual([result.config.protocol, result.config.injectTests], ['published-en', true]);
    const prompt = (condition: 'redline' | 'selfjudge', findings = [] as never[]) =>
      publishedPrompt({
        protocol: 'published-en',
        task: IS_EVEN,
        condition,
        request: { attempt: 2, state: { candidate: { files: { 'solution.py': 'x = 1' }, footprint: [], hash: 'h' }, findings } as never },
      });
    assert.equal(prompt('redline'), `Fix the error. ${DESC}\nError: Output mismatch. Expected: True\nFalse\nOutput the complete code.`);
    assert.equal(prompt('selfjudge'), `Improve the code. ${DESC}\nPrevious code:\nx = 1\nOutput the improved complete code.`);
  });

  it('gives condition B no "Failing findings: None" cue, which the redline protocol’s proposer prompt carries', async () => {
    const published = await study([RIGHT, 'NO'], { protocol: 'published', conditions: ['selfjudge'], maxAttempts: 1 });
    assert.doesNotMatch(userMessage(published.requests[0]!), /Failing findings|None/);
    const stub = await startOpenAIStub({ replies: [JSON.stringify({ files: { 'solution.py': RIGHT } }), 'NO'] });
    try {
      const languageModel = temperatureZeroModel({ baseURL: stub.baseURL, model: 'scripted' });
      await runSelfJudgeStudy({
        tasks: [{ kind: 'code', task: IS_EVEN }],
        conditions: ['selfjudge'],
        proposer: modelProposer({ languageModel }),
        ask: modelAsk(languageModel),
        ledger: new MemoryLedger(),
        trials: 1,
        maxAttempts: 1,
      });
      const proposal = (stub.requests[0] as Body).messages.at(-1)!.content as string;
      assert.match(proposal, /# Failing findings\nNone\./);
    } finally {
      await stub.close();
    }
  });

  it('refuses what the published protocol cannot run, before any run', async () => {
    const ask = async () => 'NO';
    const cases: [Partial<SelfJudgeStudyOptions>, string][] = [
      [{ protocol: 'published', judgePrompt: 'finish', ask }, 'judgePrompt'],
      [{ protocol: 'published' }, 'ask'],
      [{ protocol: 'published', ask, tasks: [{ kind: 'code', task: { ...IS_EVEN, code: 'def is_even(n)\n' } }] }, 'tasks'],
      [{ protocol: 'redline', injectTests: true, ask }, 'injectTests'],
      [{ protocol: 'published-zh' as never, ask }, 'protocol'],
    ];
    for (const [options, option] of cases) {
      await assert.rejects(
        runSelfJudgeStudy({ ledger: new MemoryLedger(), ...options }),
        (error: unknown) => error instanceof StudyOptionError && error.option === option,
        option,
      );
    }
  });
});

describe('the published parsing', () => {
  it('takes the first fenced block (bare or python), else the whole text, stripped as Python strips', () => {
    assert.equal(extractCode('a\n```python\nx = 1\n```\n```\ny = 2\n```'), 'x = 1');
    assert.equal(extractCode('```\n  y = 2  \n```'), 'y = 2');
    assert.equal(extractCode('\u3000 z = 3\n\x1c'), 'z = 3');
    assert.equal(extractCode('```js\nw = 4\n```'), '```js\nw = 4\n```');
  });

  it('counts YES as the script does: the stripped answer, upper-cased, starts with YES', () => {
    for (const answer of ['YES', ' yes.', 'Yes, it does', '\nYESNO', '\u3000yes']) assert.equal(publishedYes(answer), true, answer);
    // redline's own self-judge would take these as yes (FINISH, a thinking block): the script does not.
    for (const answer of ['NO', 'The answer is YES', 'FINISH', '<think>hm</think>YES', ''])
      assert.equal(publishedYes(answer), false, answer);
  });

  it('cuts the expected output at 40 characters as Python does: code points, not UTF-16 units', () => {
    const expected = `${'a'.repeat(39)}😀😀`;
    assert.equal(firstCodePoints(expected, 40), `${'a'.repeat(39)}😀`);
    const prompt = publishedPrompt({
      protocol: 'published',
      task: { ...IS_EVEN, expected },
      condition: 'redline',
      request: { attempt: 2, state: { candidate: null, findings: [] } as never },
    });
    assert.equal(prompt, `修复错误。${DESC}\n错误: 输出不符。期望: ${'a'.repeat(39)}😀\n输出完整代码。`);
  });
});
