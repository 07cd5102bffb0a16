import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  parseJUnit,
  parseNodeSpec,
  parseReport,
  parseTap,
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
  /** One failure whose details the report carries: the fields that must match. */
  readonly failure: { readonly id: string; readonly message?: RegExp; readonly file?: string; readonly line?: number };
  /** A failing TODO test: reported, but as `skip`. */
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
    skips: 4,
    todo: 'divides by zero',
    failure: { id: 'strings > trim > keeps inner spaces', message: /^Expected values to be strictly equal:'a b' !== 'ab'$/ },
  },
  {
    fixture: 'mocha-junit-reporter.xml',
    format: 'junit',
    passes: 3,
    skips: 2,
    failing: ['strings > strings throws on purpose', 'trim > strings trim keeps inner spaces'],
    failure: { id: 'strings > strings throws on purpose', message: /^boom$/, file: '/tmp/redline-fixtures/mocha/strings.spec.cjs' },
  },
  {
    fixture: 'node-test-tap.tap',
    format: 'tap',
    failing: nodeFailing,
    passes: 4,
    skips: 4,
    todo: 'divides by zero',
    failure: {
      id: 'parses numbers > floats',
      message: /^Expected values to be strictly equal:\n\n1\.5 !== 1\.25$/,
      file: '/tmp/redline-fixtures/node/math.test.mjs',
      line: 22,
    },
  },
  {
    fixture: 'tape.tap',
    format: 'tap',
    passes: 3,
    skips: 2,
    todo: 'TODO divides by zero > one over zero',
    failing: ['subtracts two numbers > five minus two', 'trim > keeps inner spaces'],
    failure: { id: 'subtracts two numbers > five minus two', file: '/tmp/redline-fixtures/tape/math.tape.cjs', line: 9 },
  },
  {
    fixture: 'tapjs.tap',
    format: 'tap',
    passes: 3,
    skips: 2,
    failing: ['subtracts two numbers > should be equal', 'strings > trim > keeps inner spaces'],
    failure: { id: 'strings > trim > keeps inner spaces', file: 'math.tap.cjs', line: 21 },
  },
  {
    fixture: 'node-test-hooks-tap.tap',
    format: 'tap',
    passes: 1,
    skips: 0,
    failing: ['db > reads', 'db', 'cache'],
    failure: { id: 'cache', message: /^flush failed$/, file: '/tmp/redline-fixtures/node-hooks/hooks.test.mjs', line: 11 },
  },
  {
    fixture: 'node-test-spec.txt',
    format: 'node-spec',
    failing: nodeFailing,
    passes: 4,
    skips: 4,
    todo: 'divides by zero',
    failure: { id: 'strings > throws on purpose', message: /^Error: boom$/, file: 'strings.test.mjs', line: 19 },
  },
  {
    fixture: 'node-test-spec-color.txt',
    format: 'node-spec',
    failing: nodeFailing,
    passes: 4,
    skips: 4,
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
    failing: ['db > reads', 'db', 'cache'],
    failure: { id: 'db', message: /^Error: no db$/, file: 'hooks.test.mjs', line: 3 },
  },
];

describe('parseReport on real reports', () => {
  for (const { fixture, format, failing, passes, skips, failure, todo } of cases) {
    describe(fixture, () => {
      const results = parseReport(format, read(fixture));
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

      it('counts passes and skips', () => {
        assert.deepEqual({ passes: count('pass'), skips: count('skip') }, { passes, skips });
      });

      it(`gives ${failure.id} its message and location`, () => {
        const result = find(results, failure.id);
        if (failure.message !== undefined) assert.match(result.message ?? '', failure.message);
        assert.equal(result.file, failure.file);
        assert.equal(result.line, failure.line);
      });

      if (todo !== undefined) {
        it('reports a failing TODO test as skipped, not failed', () => {
          assert.equal(find(results, todo).status, 'skip');
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
    assert.deepEqual(parseJUnit(xml), [
      { name: 'lists', suite: 'api', file: 'api.test.js', line: 3, status: 'pass' },
      { name: 'logs in', suite: 'api > auth', file: 'auth.test.js', line: 9, status: 'fail', message: 'timeout' },
    ]);
  });

  it('takes the first line of the failure text when it has no message attribute', () => {
    const xml = '<testsuites><testcase name="a"><failure>AssertionError: nope\n    at x.js:1:1</failure></testcase></testsuites>';
    assert.equal(parseJUnit(xml)[0]?.message, 'AssertionError: nope');
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
  it('ends at Bail out! with a failing test', () => {
    const results = parseTap('TAP version 13\n1..3\nok 1 - connects\nBail out! database gone\nok 2 - never read\n');
    assert.deepEqual(results, [
      { name: 'connects', status: 'pass' },
      { name: 'Bail out!', status: 'fail', message: 'database gone' },
    ]);
  });

  it('keeps subtests whose parent never reported under their # Subtest: name', () => {
    const results = parseTap('TAP version 14\n# Subtest: db\n    ok 1 - reads\n    not ok 2 - writes\n');
    assert.deepEqual(results.map(id), ['db > reads', 'db > writes']);
  });

  it('unescapes \\# in names and treats TODO failures and SKIPs as skipped', () => {
    const results = parseTap('1..3\nok 1 - issue \\#12 # skip flaky\nnot ok 2 - later # TODO not yet\nnot ok 3 - now\n');
    assert.deepEqual(
      results.map((result) => [result.name, result.status]),
      [
        ['issue #12', 'skip'],
        ['later', 'skip'],
        ['now', 'fail'],
      ],
    );
  });

  it('accepts an empty plan as zero tests', () => {
    assert.deepEqual(parseTap('TAP version 13\n1..0 # no tests\n'), []);
  });

  it('rejects text with no plan and no test line', () => {
    assertParseError(() => parseTap('Error: Cannot find module ./index.js\n'), 'tap', /no plan and no test line/);
  });
});

describe('parseNodeSpec', () => {
  it('rejects output with no test line', () => {
    assertParseError(() => parseNodeSpec('Error: Cannot find module ./index.js\n'), 'node-spec', /no test line/);
  });

  it('accepts a run of zero tests', () => {
    assert.deepEqual(parseNodeSpec('ℹ tests 0\nℹ suites 0\nℹ pass 0\n'), []);
  });
});

describe('parseReport', () => {
  it('rejects an unknown format', () => {
    assert.throws(() => parseReport('xunit' as ReportFormat, ''), { name: 'TypeError', message: /got xunit/ });
  });
});
