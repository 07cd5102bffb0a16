import { parse as parseYaml } from 'yaml';
import { ReportParseError } from './report-parse-error.js';
import { tapProblems, type TapStream } from './tap-problems.js';
import type { ParsedReport, TestResult, TestStatus } from './test-result.js';

/** A leaf test waiting for its enclosing tests to be read; `path` holds their names, outermost first. */
interface Leaf {
  readonly path: readonly string[];
  readonly result: Omit<TestResult, 'suite'>;
}

const TEST_POINT = /^( *)(not )?ok\b\s*(?:\d+\b)?\s*(?:-(?:\s|$))?(.*)$/;
const PLAN = /^( *)1\.\.(\d+)/;
const BAIL_OUT = /^ *Bail out!\s*(.*)$/;
const SUBTEST = /^( *)# Subtest: (.*)$/;
const COMMENT = /^#\s*(.*)$/;

/** Subtests are indented four spaces per level (TAP 14, node's and node-tap's reporters). */
function depthOf(indent: string): number {
  return Math.floor(indent.length / 4);
}

function location(at: unknown): { file?: string; line?: number } {
  if (typeof at === 'object' && at !== null) {
    const { fileName, file, lineNumber, line } = at as Record<string, unknown>;
    const name = fileName ?? file;
    const number = lineNumber ?? line;
    return { ...(typeof name === 'string' ? { file: name } : {}), ...(typeof number === 'number' ? { line: number } : {}) };
  }
  if (typeof at !== 'string') return {};
  // `location: 'file:8:1'` (node) or `at: fn (file:9:5)` (tape): the place sits in the last parentheses, if any.
  const place = /\(([^()]+)\)\s*$/.exec(at)?.[1] ?? at.trim();
  const match = /^(.*?):(\d+)(?::\d+)?$/.exec(place);
  return match?.[1] === undefined ? {} : { file: match[1], line: Number(match[2]) };
}

function diagnostics(
  lines: readonly string[],
  start: number,
  indent: number,
): { diag?: Record<string, unknown>; body: readonly string[]; next: number } {
  const margin = ' '.repeat(indent);
  if (lines[start]?.trimEnd() !== `${margin}---`) return { body: [], next: start };
  const end = lines.findIndex((line, index) => index > start && line.trimEnd() === `${margin}...`);
  if (end === -1) return { body: [], next: start };
  const body = lines.slice(start + 1, end).map((line) => (line.startsWith(margin) ? line.slice(indent) : line.trimStart()));
  try {
    const diag: unknown = parseYaml(body.join('\n'));
    return { ...(typeof diag === 'object' && diag !== null ? { diag: diag as Record<string, unknown> } : {}), body, next: end + 1 };
  } catch {
    // A broken diagnostics block loses the message and location, not the test's outcome.
    return { body, next: end + 1 };
  }
}

/**
 * A field of the diagnostics block as written, not as YAML reads it (`'ab'` keeps its quotes, `4` stays
 * apart from `'4'`): an inline value, or the indented block under the key (`|-` scalars, maps).
 */
function rawField(body: readonly string[], key: string): string | undefined {
  const base = /^ */.exec(body.find((line) => line.trim() !== '') ?? '')?.[0].length ?? 0;
  const start = body.findIndex((line) => line.startsWith(`${' '.repeat(base)}${key}:`) && line[base] !== ' ');
  if (start === -1) return undefined;
  const inline = (body[start] ?? '').slice(base + key.length + 1).trim();
  if (inline !== '' && !/^[|>][+-]?\d*$/.test(inline)) return inline;
  const block: string[] = [];
  for (const line of body.slice(start + 1)) {
    if (line.trim() !== '' && (/^ */.exec(line)?.[0].length ?? 0) <= base) break;
    block.push(line);
  }
  const indent = Math.min(...block.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)?.[0].length ?? 0));
  const text = block
    .map((line) => line.slice(Number.isFinite(indent) ? indent : 0))
    .join('\n')
    .trimEnd();
  return text === '' ? undefined : text;
}

/** The fields of a failed assertion an agent needs (tape, node-tap and node write them), in this order. */
const DETAIL_KEYS = ['operator', 'expected', 'actual', 'at'] as const;

/** `key: value` lines for the assertion's details; a value of several lines goes under its key, indented. */
function detailLines(body: readonly string[], diag: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const key of DETAIL_KEYS) {
    let value = rawField(body, key);
    // node writes no `at`: the first frame of its stack outside node's internals is where the assertion failed.
    if (key === 'at' && value === undefined && typeof diag['stack'] === 'string')
      value = diag['stack']
        .split('\n')
        .find((frame) => frame.trim() !== '' && !/\(node:|node_modules/.test(frame))
        ?.trim();
    if (value !== undefined) lines.push(value.includes('\n') ? `${key}:\n  ${value.split('\n').join('\n  ')}` : `${key}: ${value}`);
  }
  return lines;
}

function failureMessage(diag: Record<string, unknown>): string | undefined {
  const raw = diag['message'] ?? diag['error'];
  const text = typeof raw === 'string' ? raw : (raw as { message?: unknown } | undefined)?.message;
  return typeof text === 'string' && text.trim() !== '' ? text.trim() : undefined;
}

/** node's placeholder for a test file whose process failed (it did not load, or exited) before reporting a test. */
function fileFailed(diag: Record<string, unknown>): boolean {
  return diag['error'] === 'test failed' && diag['failureType'] === 'testCodeFailure' && 'exitCode' in diag;
}

/**
 * What a file that failed to load printed (node reports it as `# ` comments before the file's test
 * point): the error and the source line it points at, without the loader's stack frames.
 */
function loaderText(comments: readonly string[]): string | undefined {
  const text = comments
    .filter((line) => !/^\s+at /.test(line) && !/^Node\.js v\d/.test(line))
    .join('\n')
    .trim();
  return text === '' ? undefined : text;
}

function testPoint(
  ok: boolean,
  rest: string,
  found: { diag?: Record<string, unknown>; body: readonly string[] },
  comments: readonly string[],
): Omit<TestResult, 'suite'> {
  const { diag, body } = found;
  // An unescaped `#` starts the directive; anything but SKIP/TODO there (node-tap's `# time=…`) is a comment.
  const hash = rest.search(/(?<!\\)#/);
  const name = (hash === -1 ? rest : rest.slice(0, hash)).trim().replace(/\\([\\#])/g, '$1');
  const directive = hash === -1 ? undefined : /^(skip|todo)/i.exec(rest.slice(hash + 1).trim())?.[1]?.toLowerCase();
  const status: TestStatus = directive === 'skip' ? 'skip' : directive === 'todo' ? 'todo' : ok ? 'pass' : 'fail';
  let message: string | undefined;
  if (status === 'fail' && diag !== undefined) {
    const details = detailLines(body, diag);
    // tape's assertion has no message field: its name is the message ("should be deeply equivalent").
    const head = (fileFailed(diag) ? loaderText(comments) : undefined) ?? failureMessage(diag) ?? (details.length > 0 ? name : undefined);
    message = head === undefined ? undefined : [head, ...details].join('\n');
  }
  return { name, ...location(diag?.['location'] ?? diag?.['at']), status, ...(message === undefined ? {} : { message }) };
}

/** A failing parent is a failure of its own unless it only reports that its subtests failed. */
function failedItself(diag: Record<string, unknown> | undefined, children: readonly Leaf[]): boolean {
  const failureType = diag?.['failureType'];
  if (typeof failureType === 'string' && failureType !== 'subtestsFailed') return true;
  return !children.some((child) => child.result.status === 'fail');
}

/**
 * Parses TAP 13/14 into the leaf tests. Indented subtests (node's and node-tap's reporters) are folded
 * into their parent, which becomes their suite; a parent that failed for a reason of its own (a hook, a
 * plan mismatch) is reported too. `# SKIP` makes a test `skip` and `# TODO` makes it `todo`, so a failing
 * TODO is no failure. YAML diagnostics give `message`/`error` and `location`/`at`. In a flat stream (no
 * `# Subtest:` comments, as tape writes), the latest top-level comment names the test its assertions
 * belong to and becomes their suite. `Bail out!` ends the report. What is wrong with the stream as a
 * whole comes back as problems (see {@link tapProblems}).
 *
 * @throws {ReportParseError} when the text has neither a plan nor a test line.
 * @example
 * parseTap('TAP version 14\n1..2\nok 1 - adds\nnot ok 2 - divides # TODO later\n').tests;
 * // [{ name: 'adds', status: 'pass' }, { name: 'divides', status: 'todo' }]
 */
export function parseTap(text: string): ParsedReport {
  const lines = text.split(/\r?\n/);
  const flat = !lines.some((line) => SUBTEST.test(line));
  const pending: Leaf[][] = [[]];
  const subtests: string[] = [];
  let heading: string | undefined;
  /** Top-level comments since the last test point: what a test file that failed to load printed. */
  let comments: string[] = [];
  const stream: TapStream = { plans: [], points: 0 };
  let sawTap = false;
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] ?? '';
    index += 1;
    const bail = BAIL_OUT.exec(line);
    if (bail !== null) {
      stream.bailOut = bail[1] ?? '';
      break;
    }
    const plan = PLAN.exec(line);
    if (plan !== null) {
      sawTap = true;
      if (depthOf(plan[1] ?? '') === 0) stream.plans.push(Number(plan[2]));
    }
    const subtest = SUBTEST.exec(line);
    if (subtest !== null) subtests.splice(depthOf(subtest[1] ?? ''), Infinity, subtest[2] ?? '');
    const comment = COMMENT.exec(line);
    if (flat && comment !== null) heading = comment[1];
    if (comment !== null && subtest === null)
      comments.push((line.slice(1).startsWith(' ') ? line.slice(2) : line.slice(1)).replace(/\\#/g, '#'));
    const point = TEST_POINT.exec(line);
    if (point === null) continue;
    sawTap = true;
    const indent = point[1] ?? '';
    const depth = depthOf(indent);
    if (depth === 0) stream.points += 1;
    const found = diagnostics(lines, index, indent.length + 2);
    const { diag } = found;
    index = found.next;
    const result = testPoint(point[2] === undefined, point[3] ?? '', found, comments);
    comments = [];
    const children = pending.splice(depth + 1, Infinity).flat();
    const level = (pending[depth] ??= []);
    for (const child of children) level.push({ path: [result.name, ...child.path], result: child.result });
    if (children.length === 0 || (result.status === 'fail' && failedItself(diag, children))) {
      level.push({ path: flat && depth === 0 && heading !== undefined ? [heading] : [], result });
    }
  }
  if (!sawTap && stream.bailOut === undefined) throw new ReportParseError({ format: 'tap', message: 'no plan and no test line found' });
  // Subtests whose parent never reported (a truncated or bailed-out stream) go under their `# Subtest:` name.
  for (let depth = pending.length - 1; depth > 0; depth -= 1) {
    const name = subtests[depth - 1];
    for (const leaf of pending[depth] ?? [])
      (pending[depth - 1] ??= []).push({ path: name === undefined ? leaf.path : [name, ...leaf.path], result: leaf.result });
  }
  const tests = (pending[0] ?? []).map(({ path, result: { name, ...rest } }) => ({
    name,
    ...(path.length > 0 ? { suite: path.join(' > ') } : {}),
    ...rest,
  }));
  return { tests, problems: tapProblems(stream) };
}
