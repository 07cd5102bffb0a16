import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  parseJUnit,
  parseNodeSpec,
  parseTap,
  readReport,
  ReportParseError,
  type ReportFormat,
  type TestResult,
} from '../../src/checks/reports/index.js';

const fixtures = new URL('../fixtures/reports/', import.meta.url);

function read(fixture: string): string {
  return readFileSync(new URL(fixture, fixtures), 'utf8');
}

function id(result: TestResult): string {
  return result.suite === undefined ? result.name : `${result.suite} > ${result.name}`;
}

function find(results: readonly TestResult[], testId: string): TestResult {
  const result = results.find((candidate) => id(candidate) === testId);
  assert.ok(result, `no test ${testId} in ${results.map(id).join(', ')}`);
  return result;
}

interface FixtureCase {
  readonly fixture: string;
  readonly format: ReportFormat;
  readonly failing: readonly string[];
  readonly passes: number;
  readonly skips: number;
  readonly todos: number;
  /** One failure whose details the report carries: the fields that must match. */
  readonly failure: { readonly id: string; readonly message?: RegExp; readonly file?: string; readonly line?: number };
  /** A failing TODO test: reported, but as `todo`. */
  readonly todo?: string;
}

const nodeFailing = [
  'subtracts two numbers',
  'parses numbers > floats',
  'strings > trim > keeps inner spaces',
  'strings > throws on purpose',
];

const cases: readonly FixtureCase[] = [
  {
    fixture: 'node-test-junit.xml',
    format: 'junit',
    failing: nodeFailing,
    passes: 4,
    skips: 2,
    todos: 2,
    todo: 'divides by zero',
    failure: {
      id: 'strings > trim > keeps inner spaces',
      // The failure's body follows its message attribute: node prints actual, expected and operator there.
      message:
        /^Expected values to be strictly equal:'a b' !== 'ab'\n[\s\S]*actual: 'a b',\n {4}expected: 'ab',\n {4}operator: 'strictEqual'/,
      // node's JUnit reporter writes no file or line: the first frame of the body gives them.
      file: 'file:///tmp/redline-fixtures/node/strings.test.mjs',
      line: 15,
    },
  },
  {
    fixture: 'mocha-junit-reporter.xml',
    format: 'junit',
    passes: 3,
    skips: 2,
    todos: 0,
    failing: ['strings > strings throws on purpose', 'trim > strings trim keeps inner spaces'],
    failure: {
      id: 'strings > strings throws on purpose',
      message: /^Error: boom\n {4}at Context\.<anonymous> \(strings\.spec\.cjs:23:11\)$/,
      file: '/tmp/redline-fixtures/mocha/strings.spec.cjs',
      line: 23,
    },
  },
  {
    fixture: 'node-test-tap.tap',
    format: 'tap',
    failing: nodeFailing,
    passes: 4,
    skips: 2,
    todos: 2,
    todo: 'divides by zero',
    failure: {
      id: 'parses numbers > floats',
      message:
        /^Expected values to be strictly equal:\n\n1\.5 !== 1\.25\noperator: 'strictEqual'\nexpected: 1\.25\nactual: 1\.5\nat: TestContext\.<anonymous> \(file:\/\/\/tmp\/redline-fixtures\/node\/math\.test\.mjs:23:12\)$/,
      file: '/tmp/redline-fixtures/node/math.test.mjs',
      line: 22,
    },
  },
  {
    fixture: 'tape.tap',
    format: 'tap',
    passes: 3,
    skips: 1,
    todos: 1,
    todo: 'TODO divides by zero > one over zero',
    failing: ['subtracts two numbers > five minus two', 'trim > keeps inner spaces'],
    failure: {
      id: 'subtracts two numbers > five minus two',
      message:
        /^five minus two\noperator: equal\nexpected: 4\nactual: 3\nat: Test\.<anonymous> \(\/tmp\/redline-fixtures\/tape\/math\.tape\.cjs:9:5\)$/,
      file: '/tmp/redline-fixtures/tape/math.tape.cjs',
      line: 9,
    },
  },
  {
    fixture: 'tapjs.tap',
    format: 'tap',
    passes: 3,
    skips: 1,
    todos: 1,
    todo: 'divides by zero',
    failing: ['subtracts two numbers > should be equal', 'strings > trim > keeps inner spaces'],
    failure: { id: 'strings > trim > keeps inner spaces', file: 'math.tap.cjs', line: 21 },
  },
  {
    fixture: 'node-test-hooks-tap.tap',
    format: 'tap',
    passes: 1,
    skips: 0,
    todos: 0,
    failing: ['db > reads', 'db', 'cache'],
    failure: { id: 'cache', message: /^flush failed\nat: /, file: '/tmp/redline-fixtures/node-hooks/hooks.test.mjs', line: 11 },
  },
  {
    fixture: 'node-test-spec.txt',
    format: 'node-spec',
    failing: nodeFailing,
    passes: 4,
    skips: 2,
    todos: 2,
    todo: 'divides by zero',
    failure: { id: 'strings > throws on purpose', message: /^Error: boom$/, file: 'strings.test.mjs', line: 19 },
  },
  {
    fixture: 'node-test-spec-color.txt',
    format: 'node-spec',
    failing: nodeFailing,
    passes: 4,
    skips: 2,
    todos: 2,
    todo: 'divides by zero',
    failure: {
      id: 'subtracts two numbers',
      message: /^AssertionError \[ERR_ASSERTION\]: Expected values to be strictly equal:\n\n3 !== 4$/,
      file: 'math.test.mjs',
      line: 8,
    },
  },
  {
    fixture: 'node-test-hooks-spec.txt',
    format: 'node-spec',
    passes: 1,
    skips: 0,
    todos: 0,
    failing: ['db > reads', 'db', 'cache'],
    failure: { id: 'db', message: /^Error: no db$/, file: 'hooks.test.mjs', line: 3 },
  },
  {
    fixture: 'qs-6.14.0-tape.tap',
    format: 'tap',
    passes: 330,
    skips: 0,
    todos: 0,
    // Two assertions of one test with the same generic name: both are reported, each with its own line.
    failing: [
      'only parses one level when depth = 1 > should be deeply equivalent',
      'only parses one level when depth = 1 > should be deeply equivalent',
      'does not throw an exception when depth exceeds the limit with strictDepth: false > parses with depth limit',
    ],
    failure: {
      id: 'only parses one level when depth = 1 > should be deeply equivalent',
      message:
        /^should be deeply equivalent\noperator: deepEqual\nexpected: \{ a: \{ b: \{ '\[c\]': 'd' \} \} \}\nactual: \{ a: \{ b: \{ c: 'd' \} \} \}\nat: Test\.<anonymous> \(\/tmp\/h1\/qs\/work\/test\/parse\.js:205:12\)$/,
      file: '/tmp/h1/qs/work/test/parse.js',
      line: 205,
    },
  },
  {
    fixture: 'node-load-tap.tap',
    format: 'tap',
    passes: 1,
    skips: 0,
    todos: 0,
    failing: ['/tmp/redline-fixtures/node-load/bad.test.cjs', '/tmp/redline-fixtures/node-load/bad-esm.test.mjs'],
    // node names a file that failed to load after the file; the loader's error is the message, not "test failed".
    failure: {
      id: '/tmp/redline-fixtures/node-load/bad.test.cjs',
      message: /^\/tmp\/redline-fixtures\/node-load\/bad\.test\.cjs:1\nconst x = ;\n {10}\^\nSyntaxError: Unexpected token ';'$/,
      file: '/tmp/redline-fixtures/node-load/bad.test.cjs',
      line: 1,
    },
  },
  {
    fixture: 'node-load-spec.txt',
    format: 'node-spec',
    passes: 1,
    skips: 0,
    todos: 0,
    failing: ['/tmp/redline-fixtures/node-load/bad.test.cjs', '/tmp/redline-fixtures/node-load/bad-esm.test.mjs'],
    failure: {
      id: '/tmp/redline-fixtures/node-load/bad-esm.test.mjs',
      message:
        /^file:\/\/\/tmp\/redline-fixtures\/node-load\/bad-esm\.test\.mjs:1\nexport const x = ;\n {17}\^\n\nSyntaxError: Unexpected token ';'$/,
      file: 'bad-esm.test.mjs',
      line: 1,
    },
  },
];

describe('readReport on real reports', () => {
  for (const { fixture, format, failing, passes, skips, todos, failure, todo } of cases) {
    describe(fixture, () => {
      const { tests: results, problems } = readReport(format, read(fixture));
      const count = (status: TestResult['status']): number => results.filter((result) => result.status === status).length;

      it('finds exactly the failing tests', () => {
        assert.deepEqual(
          results
            .filter((result) => result.status === 'fail')
            .map(id)
            .sort(),
          [...failing].sort(),
        );
      });

      it('counts passes, skips and TODO tests', () => {
        assert.deepEqual({ passes: count('pass'), skips: count('skip'), todos: count('todo') }, { passes, skips, todos });
      });

      it('finds nothing wrong with the report as a whole', () => {
        assert.deepEqual(problems, []);
      });

      it(`gives ${failure.id} its message and location`, () => {
        const result = find(results, failure.id);
        if (failure.message !== undefined) assert.match(result.message ?? '', failure.message);
        assert.equal(result.file, failure.file);
        assert.equal(result.line, failure.line);
      });

      if (todo !== undefined) {
        it('reports a TODO test as todo, not failed', () => {
          assert.equal(find(results, todo).status, 'todo');
        });
      }
    });
  }
});

function assertParseError(parse: () => unknown, format: ReportFormat, message: RegExp): void {
  assert.throws(parse, (error: unknown) => {
    assert.ok(error instanceof ReportParseError);
    assert.equal(error.name, 'ReportParseError');
    assert.equal(error.format, format);
    assert.match(error.message, message);
    return true;
  });
}

describe('parseJUnit', () => {
  it('reads a single <testsuite> root with nested suites, file and line attributes and <error>', () => {
    const xml = `<?xml version="1.0"?>
      <testsuite name="api" file="api.test.js">
        <testcase name="lists" line="3"/>
        <testsuite name="auth"><testcase name="logs in" file="auth.test.js" line="9"><error message="timeout">stack</error></testcase></testsuite>
      </testsuite>`;
    assert.deepEqual(parseJUnit(xml).tests, [
      { name: 'lists', suite: 'api', file: 'api.test.js', line: 3, declaredFile: 'api.test.js', status: 'pass' },
      {
        name: 'logs in',
        suite: 'api > auth',
        file: 'auth.test.js',
        line: 9,
        declaredFile: 'auth.test.js',
        status: 'fail',
        message: 'timeout\nstack',
      },
    ]);
  });

  it('takes the failure text as the message, and the place of its first frame outside dependencies as the location', () => {
    const xml = `<testsuites><testcase name="a"><failure>AssertionError: nope
    at Object.assert (/w/node_modules/chai/index.js:3:1)
    at Context.&lt;anonymous> (/w/test/a.js:7:5)
    at process.processImmediate (node:internal/timers:483:21)</failure></testcase></testsuites>`;
    assert.deepEqual(parseJUnit(xml).tests[0], {
      name: 'a',
      file: '/w/test/a.js',
      line: 7,
      status: 'fail',
      message: 'AssertionError: nope\n    at Context.<anonymous> (/w/test/a.js:7:5)',
    });
  });

  it('keeps the message attribute before a body that does not repeat it, and at most 30 lines of the body', () => {
    const body = Array.from({ length: 40 }, (_, index) => `line ${index}`).join('\n');
    const message = parseJUnit(`<testsuites><testcase name="a"><failure message="short">${body}</failure></testcase></testsuites>`).tests[0]
      ?.message;
    assert.equal(message, `short\n${Array.from({ length: 30 }, (_, index) => `line ${index}`).join('\n')}\n…`);
  });

  it('rejects text that is not XML', () => {
    assertParseError(() => parseJUnit('npm ERR! missing script: test'), 'junit', /not well-formed XML at line 1/);
  });

  it('rejects XML that is not a JUnit report', () => {
    assertParseError(() => parseJUnit('<html><body/></html>'), 'junit', /expected a <testsuites> or <testsuite> root element, got <html>/);
  });

  it('rejects a truncated report', () => {
    assertParseError(() => parseJUnit('<testsuites><testsuite name="a"><testcase name="b">'), 'junit', /not well-formed XML/);
  });
});

describe('parseTap', () => {
  it('ends at Bail out!, a problem of the stream', () => {
    assert.deepEqual(parseTap('TAP version 13\n1..3\nok 1 - connects\nBail out! database gone\nok 2 - never read\n'), {
      tests: [{ name: 'connects', status: 'pass' }],
      problems: [{ code: 'report.bail_out', message: 'the test runner bailed out: database gone' }],
    });
  });

  it('keeps subtests whose parent never reported under their # Subtest: name', () => {
    const results = parseTap('TAP version 14\n# Subtest: db\n    ok 1 - reads\n    not ok 2 - writes\n').tests;
    assert.deepEqual(results.map(id), ['db > reads', 'db > writes']);
  });

  it('unescapes \\# in names and tells SKIP from TODO; a TODO failure is no failure', () => {
    const results = parseTap('1..3\nok 1 - issue \\#12 # skip flaky\nnot ok 2 - later # TODO not yet\nnot ok 3 - now\n').tests;
    assert.deepEqual(
      results.map((result) => [result.name, result.status]),
      [
        ['issue #12', 'skip'],
        ['later', 'todo'],
        ['now', 'fail'],
      ],
    );
  });

  it('carries operator, expected, actual and at into the message as written, maps and block scalars indented', () => {
    const tap = [
      'TAP version 13',
      'not ok 1 - same',
      '  ---',
      "  error: 'Expected values to be loosely deep-equal'",
      '  expected:',
      '    a: 1',
      "    b: '2'",
      '  actual: |-',
      '    { a: 1,',
      '      b: 3 }',
      "  operator: 'deepEqual'",
      '  stack: |-',
      '    assert (node:assert:10:1)',
      '    TestContext.<anonymous> (file:///w/test/a.test.mjs:4:3)',
      '  ...',
      '1..1',
    ].join('\n');
    assert.equal(
      parseTap(tap).tests[0]?.message,
      [
        'Expected values to be loosely deep-equal',
        "operator: 'deepEqual'",
        'expected:',
        '  a: 1',
        "  b: '2'",
        'actual:',
        '  { a: 1,',
        '    b: 3 }',
        'at: TestContext.<anonymous> (file:///w/test/a.test.mjs:4:3)',
      ].join('\n'),
    );
  });

  it('accepts an empty plan as zero tests', () => {
    assert.deepEqual(parseTap('TAP version 13\n1..0 # no tests\n'), { tests: [], problems: [] });
  });

  it('rejects text with no plan and no test line', () => {
    assertParseError(() => parseTap('Error: Cannot find module ./index.js\n'), 'tap', /no plan and no test line/);
  });
});

describe('parseTap: the stream as a whole', () => {
  const problems = (text: string) => parseTap(text).problems.map((problem) => problem.code);

  it('counts the top-level plan against top-level test points, whether the plan comes first or last', () => {
    assert.deepEqual(problems('TAP version 13\n1..2\nok 1 - a\nok 2 - b\n'), []);
    assert.deepEqual(problems('TAP version 13\nok 1 - a\nok 2 - b\n1..2\n'), []);
    // Subtests are indented under plans of their own (node, node-tap): only the top level counts.
    assert.deepEqual(problems('TAP version 14\n# Subtest: db\n    ok 1 - reads\n    ok 2 - writes\n    1..2\nok 1 - db\n1..1\n'), []);
  });

  it('finds a missing plan, a plan that counts other tests, and a second plan', () => {
    assert.deepEqual(problems('TAP version 13\nok 1 - a\n'), ['report.no_plan']);
    assert.deepEqual(problems('TAP version 14\n# Subtest: db\n    ok 1 - reads\n    1..1\nok 1 - db\n'), ['report.no_plan']);
    assert.deepEqual(problems('TAP version 13\n1..3\nok 1 - a\nok 2 - b\n'), ['report.plan_mismatch']);
    assert.deepEqual(problems('TAP version 13\n1..0\nok 1 - a\n'), ['report.plan_mismatch']);
    assert.deepEqual(problems('TAP version 13\n1..1\nok 1 - a\n1..1\nok 1 - b\n'), ['report.plan_repeated']);
  });

  it('finds a bail-out in a subtest too, and does not count the plan of a stream it cut short', () => {
    assert.deepEqual(problems('TAP version 14\n1..2\n# Subtest: db\n    Bail out! no db\n'), ['report.bail_out']);
  });
});

describe('parseJUnit: declared files', () => {
  it("keeps the file a case or its suite declares apart from one its failure's stack gives", () => {
    const mocha = readReport('junit', read('mocha-junit-reporter.xml')).tests;
    assert.deepEqual(
      mocha.map((test) => test.declaredFile),
      [undefined, ...Array<string>(6).fill('/tmp/redline-fixtures/mocha/strings.spec.cjs')],
    );
    const node = readReport('junit', read('node-test-junit.xml')).tests;
    assert.ok(node.some((test) => test.file !== undefined));
    assert.ok(node.every((test) => test.declaredFile === undefined));
  });
});

describe('parseNodeSpec', () => {
  it('rejects output with no test line', () => {
    assertParseError(() => parseNodeSpec('Error: Cannot find module ./index.js\n'), 'node-spec', /no test line/);
  });

  it('accepts a run of zero tests', () => {
    assert.deepEqual(parseNodeSpec('ℹ tests 0\nℹ suites 0\nℹ pass 0\n'), { tests: [], problems: [] });
  });
});

describe('readReport', () => {
  it('rejects an unknown format', () => {
    assert.throws(() => readReport('xunit' as ReportFormat, ''), { name: 'TypeError', message: /got xunit/ });
  });
});
