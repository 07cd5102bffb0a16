import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BASELINE_BYTES, BASELINE_FILE_BYTES, briefBaseline, type BaselineSource } from '../../src/core/brief-baseline.js';
import { finding } from '../../src/core/check.js';
import { BRIEF_FINDINGS, makeBrief } from '../../src/core/brief.js';
import { EMPTY_CANDIDATE } from '../../src/core/candidate.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { MemoryReviewQueue } from '../../src/review/memory/memory-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';

const tests = { name: 'tests', stage: 'fast', tier: 'demand' } as const;
const base = { runId: 'r', task: 't', priority: 0, cutoffReason: 'c', attempts: 1, verification: 'unverified' } as const;

describe('makeBrief', () => {
  it('lists the failing findings (check, codes, message, location), at most 20, with the count left out', () => {
    const findings = [
      finding({ name: 'scope', stage: 'fast', tier: 'format' }, 'pass', [], 'in scope'),
      ...Array.from({ length: 23 }, (_, index) =>
        finding(tests, 'fail', [`test.failed:t${index}`], `t${index} broke`, { location: { file: 'test/a.js', line: index + 1 } }),
      ),
      finding({ name: 'lint', stage: 'fast', tier: 'format' }, 'error', ['process.timeout'], 'x'.repeat(3000)),
    ];
    const brief = makeBrief({ ...base, candidate: EMPTY_CANDIDATE, findings });
    assert.equal(brief.failing?.length, BRIEF_FINDINGS);
    assert.deepEqual(brief.failing?.[1], {
      check: 'tests',
      status: 'fail',
      reasonCodes: ['test.failed:t1'],
      message: 't1 broke',
      location: { file: 'test/a.js', line: 2 },
    });
    assert.equal(brief.failingOmitted, 4);
    assert.equal(brief.lastError, `lint: ${'x'.repeat(3000)}`);
  });

  it("tells the last attempt's proposer account after the last error: how it ended and the last lines of its stderr and transcript", () => {
    const findings = [finding(tests, 'fail', ['test.failed:adds'], 'expected 3, got -1')];
    const lines = Array.from({ length: 12 }, (_, index) => `line ${index + 1}`).join('\n');
    const account = {
      kind: 'agent',
      exitCode: 0,
      durationMs: 3140,
      stdout: { text: '', droppedBytes: 0 },
      stderr: { text: `${lines}\nFailed to write file src/add.js\n`, droppedBytes: 40_000 },
      transcript: { text: '{"type":"turn.completed"}\n', droppedBytes: 0 },
    };
    const brief = makeBrief({ ...base, candidate: EMPTY_CANDIDATE, findings, account });
    assert.equal(
      brief.lastError,
      [
        'tests: expected 3, got -1',
        '',
        'the agent: exit 0, 3.1 s',
        'last lines of its stderr:',
        ...['line 4', 'line 5', 'line 6', 'line 7', 'line 8', 'line 9', 'line 10', 'line 11', 'line 12'].map((line) => `  ${line}`),
        '  Failed to write file src/add.js',
        'last lines of its transcript:',
        '  {"type":"turn.completed"}',
      ].join('\n'),
    );
    // Without an error there is nothing for the account to explain.
    assert.equal(makeBrief({ ...base, candidate: EMPTY_CANDIDATE, findings: [], account }).lastError, undefined);
  });

  it('strips thinking-token leakage from the final output, files and value, and records what it stripped', () => {
    const candidate = {
      ...EMPTY_CANDIDATE,
      files: { 'src/a.js': '<think>plan: add</think>export const a = 1;\n', 'src/gone.js': null, 'notes.md': 'ok' },
      value: { answer: '<THINKING>hmm</THINKING>42', list: ['reasoning…</think>7', 3] },
    };
    const brief = makeBrief({ ...base, candidate, findings: [] });
    assert.deepEqual(brief.finalOutput, {
      files: { 'src/a.js': 'export const a = 1;\n', 'src/gone.js': null, 'notes.md': 'ok' },
      value: { answer: '42', list: ['7', 3] },
    });
    assert.deepEqual(brief.stripped, [
      { pattern: '<think>[\\s\\S]*?</think>', count: 1 },
      { pattern: '<thinking>[\\s\\S]*?</thinking>', count: 1 },
      { pattern: '^[\\s\\S]*?</think(?:ing)?>', count: 1 },
    ]);
    assert.equal(brief.failing, undefined);
  });

  it('strips an opening tag never closed to the end, takes configured patterns instead, and nothing with []', () => {
    const candidate = { ...EMPTY_CANDIDATE, value: 'answer: 42\n<thinking>and then I', files: { 'a.txt': '[[scratch]] x [[scratch]]' } };
    assert.deepEqual(makeBrief({ ...base, candidate, findings: [] }).finalOutput.value, 'answer: 42\n');
    const custom = makeBrief({ ...base, candidate, findings: [], stripPatterns: ['\\[\\[scratch\\]\\] ?'] });
    assert.deepEqual(
      [custom.finalOutput, custom.stripped],
      [{ files: { 'a.txt': 'x ' }, value: 'answer: 42\n<thinking>and then I' }, [{ pattern: '\\[\\[scratch\\]\\] ?', count: 2 }]],
    );
    const none = makeBrief({ ...base, candidate, findings: [], stripPatterns: [] });
    assert.deepEqual([none.finalOutput.value, none.stripped], ['answer: 42\n<thinking>and then I', undefined]);
  });
});

describe('the brief of a run', () => {
  it('refuses a mission whose strip pattern is not a regular expression, naming the path', () => {
    assert.throws(
      () => defineMission({ id: 'm', goal: 'g', brief: { stripPatterns: ['<think>(', ''] } }),
      (error: Error) => {
        assert.match(error.message, /brief\.stripPatterns\[0\]: not a regular expression/);
        assert.match(error.message, /brief\.stripPatterns\[1\]/);
        return true;
      },
    );
  });

  it('a human-gate stop hands the queue every failing finding with the loader error and the tests that did not run, and the output without thinking tokens', async () => {
    const dir = await tempWorkspace({
      'src/add.js': 'module.exports = (a, b) => a - b;\n',
      'test/add.test.js':
        "const test = require('node:test');\nconst add = require('../src/add.js');\ntest('adds', () => require('node:assert').equal(add(2, 2), 4));\n",
      'test/sub.test.js': 'const sub = (a, b) => a - ;\n',
    });
    const queue = new MemoryReviewQueue();
    const result = await runMission({
      mission: defineMission({
        id: 'gate',
        goal: 'make add add',
        workspace: dir,
        scope: ['src/**'],
        checks: [{ name: 'tests', kind: 'test-runner', command: 'node --test --test-reporter=tap', format: 'tap' }],
        stopPolicy: { guards: [{ humanGate: { n: 1 } }] },
      }),
      proposer: functionProposer(() => ({ files: { 'src/add.js': '<think>maybe times?</think>module.exports = (a, b) => a * b;\n' } })),
      handoff: { queue },
    });
    assert.deepEqual([result.outcome, result.stopReason], ['blocked', 'human_gate']);
    const brief = result.brief;
    // The leaked tokens broke src/add.js: the loader's errors say so, for each test file, without temp paths.
    assert.deepEqual(
      brief?.failing?.map((item) => [item.check, item.reasonCodes, item.message]),
      [
        [
          'tests',
          ['test.failed:test/add.test.js'],
          "src/add.js:1\n<think>maybe times?</think>module.exports = (a, b) => a * b;\n^\nSyntaxError: Unexpected token '<'",
        ],
        [
          'tests',
          ['test.failed:test/sub.test.js'],
          "test/sub.test.js:1\nconst sub = (a, b) => a - ;\n                          ^\nSyntaxError: Unexpected token ';'",
        ],
        // The baseline's `adds` did not run at all: the red line lost it, and says so.
        ['tests', ['test.missing:adds'], "adds is missing: the baseline's report had it (fail), this report does not"],
        ['tests', ['test.inventory_shrank'], '1 of 2 baseline tests did not run (1 missing, 0 newly skipped)'],
      ],
    );
    assert.deepEqual(brief?.finalOutput.files, { 'src/add.js': 'module.exports = (a, b) => a * b;\n' });
    assert.deepEqual(brief?.stripped, [{ pattern: '<think>[\\s\\S]*?</think>', count: 1 }]);
    // The candidate itself is sealed as proposed.
    assert.match(result.candidate.files['src/add.js'] ?? '', /^<think>/);
    const [entry] = await queue.list();
    assert.deepEqual([entry?.item.failing, entry?.item.stripped], [brief?.failing, brief?.stripped]);
  });
});

describe('the files before the run a brief keeps', () => {
  const source =
    (files: Record<string, Uint8Array | Error>, reads: string[] = []): BaselineSource =>
    (file) => {
      if (!Object.hasOwn(files, file)) return null;
      const content = files[file] as Uint8Array | Error;
      return {
        size: content instanceof Error ? 10 : content.length,
        read: () => {
          reads.push(file);
          if (content instanceof Error) throw content;
          return content;
        },
      };
    };

  it('keeps UTF-8 text, null where there was no file, and says why it left out a binary, oversized or unreadable one', () => {
    const reads: string[] = [];
    const files = {
      'src/a.ts': Buffer.from('export const a = "naïve ✓";\n'),
      'img.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0a]),
      'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9]),
      'huge.log': Buffer.alloc(BASELINE_FILE_BYTES + 1, 0x61),
      'damaged.ts': new Error('the pack is damaged'),
    };
    const baseline = briefBaseline([...Object.keys(files), 'src/new.ts'], source(files, reads));
    assert.deepEqual(baseline, {
      'damaged.ts': { omitted: 'unreadable', bytes: 10 },
      'huge.log': { omitted: 'too_large', bytes: BASELINE_FILE_BYTES + 1 },
      'img.png': { omitted: 'binary', bytes: 6 },
      'latin1.txt': { omitted: 'binary', bytes: 4 },
      'src/a.ts': 'export const a = "naïve ✓";\n',
      'src/new.ts': null,
    });
    assert.ok(!reads.includes('huge.log'), 'a file over the cap is not read');
  });

  it('keeps at most BASELINE_BYTES in all, in path order, and a path named __proto__ as a plain key', () => {
    const chunk = Buffer.alloc(BASELINE_FILE_BYTES, 0x62);
    const count = BASELINE_BYTES / BASELINE_FILE_BYTES + 2;
    const files = Object.fromEntries(Array.from({ length: count }, (_, index) => [`f${String(index).padStart(2, '0')}.txt`, chunk]));
    const baseline = briefBaseline(['__proto__', ...Object.keys(files)], source({ ...files }));
    const kept = Object.values(baseline).filter((entry) => typeof entry === 'string');
    assert.equal(kept.length, BASELINE_BYTES / BASELINE_FILE_BYTES);
    assert.deepEqual(baseline[`f${String(count - 1).padStart(2, '0')}.txt`], { omitted: 'brief_full', bytes: BASELINE_FILE_BYTES });
    assert.ok(Object.hasOwn(baseline, '__proto__'));
    assert.equal(baseline['__proto__'], null);
    assert.equal(Object.getPrototypeOf(baseline), Object.prototype);
  });

  it('strips thinking tokens from the final files only: the baseline is the workspace as it was', () => {
    const candidate = { ...EMPTY_CANDIDATE, files: { 'a.md': '<think>x</think>new\n', 'b.md': null } };
    const before = { 'a.md': Buffer.from('<think>kept</think>old\n'), 'b.md': Buffer.from('gone\n'), 'c.md': Buffer.from('untouched\n') };
    const brief = makeBrief({ ...base, candidate, findings: [], baseline: source(before) });
    assert.deepEqual(brief.finalOutput, {
      files: { 'a.md': 'new\n', 'b.md': null },
      baseline: { 'a.md': '<think>kept</think>old\n', 'b.md': 'gone\n' },
    });
  });

  it('an unverified run handed to the review queue keeps its changed files as the snapshot held them, whatever the live tree does', async () => {
    const start = {
      'src/add.js': 'module.exports = (a, b) => a - b;\n',
      'src/old.js': 'module.exports = 1;\n',
      'README.md': 'untouched\n',
    };
    const dir = await tempWorkspace(start);
    await writeFile(path.join(dir, 'logo.bin'), Buffer.from([0, 1, 2, 3]));
    const queue = new MemoryReviewQueue();
    const result = await runMission({
      mission: defineMission({
        id: 'baseline',
        goal: 'make add add',
        workspace: dir,
        budgets: { maxAttempts: 2 },
        checks: [{ name: 'tests', kind: 'command', tier: 'demand', command: 'false' }],
        stopPolicy: { guards: [] },
      }),
      proposer: functionProposer(async ({ attempt }) => {
        // The live workspace changes while the run runs: the brief's baseline is the snapshot, not this.
        await writeFile(path.join(dir, 'src/add.js'), `live edit ${attempt}\n`);
        return {
          files: { 'src/add.js': 'module.exports = (a, b) => a + b;\n', 'src/new.js': 'new\n', 'src/old.js': null, 'logo.bin': 'x' },
        };
      }),
      handoff: { queue },
    });
    assert.deepEqual([result.outcome, result.verification], ['failed_with_evidence', 'unverified']);
    const [entry] = await queue.list();
    assert.deepEqual(entry?.item.finalOutput.baseline, {
      'logo.bin': { omitted: 'binary', bytes: 4 },
      'src/add.js': start['src/add.js'],
      'src/new.js': null,
      'src/old.js': start['src/old.js'],
    });
    assert.deepEqual(Object.keys(entry?.item.finalOutput.baseline ?? {}), Object.keys(entry?.item.finalOutput.files ?? {}).sort());
    assert.deepEqual(result.brief?.finalOutput.baseline, entry?.item.finalOutput.baseline);
  });

  it('a run without a workspace keeps no baseline', async () => {
    const queue = new MemoryReviewQueue();
    await runMission({
      mission: defineMission({ id: 'no-workspace', goal: 'g', budgets: { maxAttempts: 1 }, stopPolicy: { guards: [] } }),
      proposer: functionProposer(() => ({ value: 'v' })),
      checks: [{ name: 'never', stage: 'fast', tier: 'demand', required: true, run: async () => [] }],
      handoff: { queue },
    });
    const [entry] = await queue.list();
    assert.equal(entry?.item.finalOutput.baseline, undefined);
  });
});
