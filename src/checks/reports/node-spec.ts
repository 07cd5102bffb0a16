import { stripVTControlCharacters } from 'node:util';
import { ReportParseError } from './report-parse-error.js';
import type { ParsedReport, TestStatus } from './test-result.js';

/** A leaf test being assembled: the failing-tests section adds its location after the tree is read. */
interface Entry {
  name: string;
  suites: readonly string[];
  status: TestStatus;
  message?: string;
  file?: string;
  line?: number;
}

interface OpenSuite {
  readonly name: string;
  readonly depth: number;
  failed: boolean;
}

const MARKER = /^( *)([✔✖﹣▶]) (.*)$/;
const TIMED_TITLE = /^(.*) \(\d+(?:\.\d+)?ms\)(?: # (.*))?$/;
const PLAIN_TITLE = /^(.*?)(?: # (.*))?$/;
const SUMMARY = /^ℹ tests \d+/;
const LOCATION = /^test at (.+?):(\d+)(?::\d+)?$/;

function parseTitle(text: string): { name: string; timed: boolean; directive: boolean } {
  const timed = TIMED_TITLE.exec(text);
  const match = timed ?? PLAIN_TITLE.exec(text);
  return { name: match?.[1] ?? text, timed: timed !== null, directive: match?.[2] !== undefined };
}

/** The error printed under a failing test, without its stack: `AssertionError [...]: …` or `Error: boom`. */
function errorMessage(lines: readonly string[], start: number, depth: number): string | undefined {
  const message: string[] = [];
  for (const line of lines.slice(start)) {
    const body = line.slice((depth + 1) * 2);
    // A line not indented under the test is not its error (what the next test file printed while loading).
    const outside = line.trim() !== '' && !line.startsWith(' '.repeat((depth + 1) * 2));
    if (MARKER.test(line) || line.startsWith('ℹ') || outside || body.trimStart().startsWith('at ')) break;
    message.push(body);
  }
  const text = message.join('\n').trim();
  return text === '' ? undefined : text;
}

/**
 * What a test file that failed to load printed before node's `✖ <file>` line with its placeholder
 * `'test failed'`: from the first unindented line after the previous test's block, without the loader's
 * stack frames.
 */
function loaderText(lines: readonly string[], at: number): string | undefined {
  let start = at;
  while (start > 0 && !MARKER.test(lines[start - 1] ?? '') && !(lines[start - 1] ?? '').startsWith('ℹ')) start -= 1;
  const block = lines.slice(start, at);
  const first = block.findIndex((line) => line.trim() !== '' && !line.startsWith(' '));
  const text = (first === -1 ? [] : block.slice(first))
    .filter((line) => !/^\s+at /.test(line) && !/^Node\.js v\d/.test(line))
    .join('\n')
    .trim();
  return text === '' ? undefined : text;
}

/**
 * Parses the node test runner's default `spec` output (`node --test --test-reporter=spec`), coloured or
 * not. Suites nest by indentation (`▶ name` opens one) and become the `suite` of their leaf tests; a
 * suite that failed for a reason of its own (a hook: node then prints the suite's error) is reported too.
 * A `﹣` test is skipped; a ✔ or ✖ test with a `# …` after its duration is a TODO test, so a failing
 * TODO is `todo`, not a failure. The closing "failing tests:" section gives each failure's file and line.
 * A file that failed to load (node names its test after the file) gets what the loader printed above it,
 * such as `SyntaxError: Unexpected token`. The `ℹ tests N` summary is not compared with the tests read:
 * node counts a test that has subtests as one more test, and none for a suite whose hook failed (read here
 * as a failure of its own).
 *
 * @throws {ReportParseError} when the text has no test line and no `ℹ tests` summary.
 * @example
 * parseNodeSpec('✔ adds (0.2ms)\n﹣ divides (0.1ms) # SKIP\n').tests;
 * // [{ name: 'adds', status: 'pass' }, { name: 'divides', status: 'skip' }]
 */
export function parseNodeSpec(text: string): ParsedReport {
  const lines = stripVTControlCharacters(text).split(/\r?\n/);
  const failingAt = lines.findIndex((line) => line.trim() === '✖ failing tests:');
  const tree = failingAt === -1 ? lines : lines.slice(0, failingAt);
  const entries: Entry[] = [];
  // Every ✖ line in order, so the failing-tests section (same order, TODO failures included) lines up.
  const failures: { name: string; entry?: Entry }[] = [];
  const stack: OpenSuite[] = [];
  let sawTests = tree.some((line) => SUMMARY.test(line));
  tree.forEach((line, index) => {
    const marker = MARKER.exec(line);
    if (marker === null) return;
    sawTests = true;
    const depth = (marker[1] ?? '').length / 2;
    const { name, timed, directive } = parseTitle(marker[3] ?? '');
    const header = marker[2] === '▶' && !timed;
    // A suite closes on a line of its own name at its own depth; anything else at or above it means it never will.
    const closes = (suite: OpenSuite): boolean => !header && suite.depth === depth && suite.name === name;
    for (let top = stack.at(-1); top !== undefined && top.depth >= depth && !closes(top); top = stack.at(-1)) stack.pop();
    if (header) {
      stack.push({ name: marker[3] ?? '', depth, failed: false });
      return;
    }
    // node marks a skipped test `﹣`; a TODO test keeps ✔ or ✖ and gets its reason (or `TODO`) after a `#`.
    const status: TestStatus = marker[2] === '﹣' ? 'skip' : directive ? 'todo' : marker[2] === '✖' ? 'fail' : 'pass';
    const closing = stack.at(-1)?.depth === depth ? stack.pop() : undefined;
    const error = status === 'fail' ? errorMessage(tree, index + 1, depth) : undefined;
    const message = depth === 0 && error === "'test failed'" ? (loaderText(tree, index) ?? error) : error;
    let entry: Entry | undefined;
    // node prints a suite's own error only when it is not "subtests failed": then the suite failed itself.
    if (closing === undefined || (status === 'fail' && (!closing.failed || message !== undefined))) {
      entry = { name, suites: stack.map((suite) => suite.name), status, ...(message === undefined ? {} : { message }) };
      entries.push(entry);
    }
    if (status === 'fail') for (const suite of stack) suite.failed = true;
    if (marker[2] === '✖') failures.push({ name, ...(entry === undefined ? {} : { entry }) });
  });
  if (!sawTests) throw new ReportParseError({ format: 'node-spec', message: 'no test line and no "ℹ tests" summary found' });
  let cursor = 0;
  let location: RegExpExecArray | null = null;
  for (const line of failingAt === -1 ? [] : lines.slice(failingAt + 1)) {
    location = LOCATION.exec(line) ?? location;
    const marker = MARKER.exec(line);
    if (marker?.[2] !== '✖') continue;
    const { name } = parseTitle(marker[3] ?? '');
    const found = failures.findIndex((failure, index) => index >= cursor && failure.name === name);
    const entry = failures[found]?.entry;
    if (found !== -1) cursor = found + 1;
    if (entry !== undefined && location !== null) Object.assign(entry, { file: location[1], line: Number(location[2]) });
    location = null;
  }
  const tests = entries.map(({ name, suites, ...rest }) => ({
    name,
    ...(suites.length > 0 ? { suite: suites.join(' > ') } : {}),
    ...rest,
  }));
  return { tests, problems: [] };
}
