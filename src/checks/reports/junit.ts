import { createRequire } from 'node:module';
import type * as Fxp from 'fast-xml-parser';
import type { XMLParser } from 'fast-xml-parser';
import { ReportParseError } from './report-parse-error.js';
import type { ParsedReport, TestResult, TestStatus } from './test-result.js';

/** An element as fast-xml-parser's `preserveOrder` mode gives it: `{ [tag]: children, ':@'?: attributes }`. */
type XmlNode = Record<string, unknown>;

/** fast-xml-parser, loaded with the first JUnit report: a run whose checks report otherwise does not pay for it at start. */
let loaded: { parser: XMLParser; validate: typeof Fxp.XMLValidator.validate } | undefined;

function loadXml(): NonNullable<typeof loaded> {
  if (loaded !== undefined) return loaded;
  const { XMLParser, XMLValidator } = createRequire(import.meta.url)('fast-xml-parser') as typeof Fxp;
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    parseAttributeValue: false,
    // Decodes numeric character references (`&#10;`), which reporters use for newlines in attributes.
    htmlEntities: true,
  });
  loaded = { parser, validate: (text, options) => XMLValidator.validate(text, options) };
  return loaded;
}

function tagOf(node: XmlNode): string | undefined {
  return Object.keys(node).find((key) => key !== ':@' && key !== '#text');
}

function childrenOf(node: XmlNode): XmlNode[] {
  const tag = tagOf(node);
  const children = tag === undefined ? undefined : node[tag];
  return Array.isArray(children) ? (children as XmlNode[]) : [];
}

function attr(node: XmlNode, name: string): string | undefined {
  const value = (node[':@'] as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function textOf(node: XmlNode): string {
  return childrenOf(node)
    .map((child) => (typeof child['#text'] === 'string' ? child['#text'] : ''))
    .join('')
    .trim();
}

/** Stack frames in node's internals and in dependencies: noise to whoever fixes the test. */
const NOISE_FRAME = /^\s*at .*(?:\(node:|\bnode:internal|node_modules)/;
const FRAME = /^\s*at (?:.*\((.+?):(\d+)(?::\d+)?\)|(.+?):(\d+)(?::\d+)?)\s*\{?$/;
/** Lines of a failure's body kept in the message. */
const BODY_LINES = 30;

/** The failure's message attribute and its body (the error as the runner printed it), without noise frames. */
function failureText(problem: XmlNode): { message?: string; frames: string[] } {
  const summary = attr(problem, 'message')?.trim();
  const lines = textOf(problem)
    .split('\n')
    .filter((line) => !NOISE_FRAME.test(line));
  const frames = lines.filter((line) => FRAME.test(line));
  const body = lines.slice(0, BODY_LINES).join('\n').trim() + (lines.length > BODY_LINES ? '\n…' : '');
  const message = body === '' ? summary : summary === undefined || body.includes(summary) ? body : `${summary}\n${body}`;
  return { ...(message === undefined || message === '' ? {} : { message }), frames };
}

/** Where the first frame of the failure's stack points, when the case did not say: file and line. */
function frameLocation(frames: readonly string[], file: string | undefined): { file?: string; line?: number } {
  for (const frame of frames) {
    const match = FRAME.exec(frame);
    const place = match?.[1] ?? match?.[3];
    const line = Number(match?.[2] ?? match?.[4]);
    if (place === undefined) continue;
    // A case whose suite names its file takes the line of the first frame in that file.
    if (file === undefined) return { file: place, line };
    if (file === place || file.endsWith(`/${place}`) || place.endsWith(`/${file}`)) return { line };
  }
  return {};
}

/** `<skipped>` alone skips a case; node's reporter marks a TODO test `<skipped type="todo">` (with its `<failure>`, if it failed). */
function skipStatus(children: readonly XmlNode[]): TestStatus | undefined {
  const skipped = children.filter((child) => tagOf(child) === 'skipped');
  if (skipped.length === 0) return undefined;
  return skipped.some((child) => attr(child, 'type')?.toLowerCase() === 'todo') ? 'todo' : 'skip';
}

function caseResult(testcase: XmlNode, suites: readonly string[], suiteFile: string | undefined): TestResult {
  const name = attr(testcase, 'name');
  if (name === undefined) throw new ReportParseError({ format: 'junit', message: 'a <testcase> has no name attribute' });
  const children = childrenOf(testcase);
  const problem = children.find((child) => tagOf(child) === 'failure' || tagOf(child) === 'error');
  // A skipped or TODO case that also failed does not count as failed (node's reporter writes both for a failing TODO).
  const skipped = skipStatus(children);
  const declaredFile = attr(testcase, 'file') ?? suiteFile;
  const attrLine = Number.parseInt(attr(testcase, 'line') ?? '', 10);
  const { message, frames } = problem === undefined || skipped !== undefined ? { frames: [] } : failureText(problem);
  const { file = declaredFile, line = Number.isInteger(attrLine) ? attrLine : undefined } = Number.isInteger(attrLine)
    ? {}
    : frameLocation(frames, declaredFile);
  return {
    name,
    ...(suites.length > 0 ? { suite: suites.join(' > ') } : {}),
    ...(file === undefined ? {} : { file }),
    ...(line === undefined ? {} : { line }),
    ...(declaredFile === undefined ? {} : { declaredFile }),
    status: skipped ?? (problem === undefined ? 'pass' : 'fail'),
    ...(message === undefined ? {} : { message }),
  };
}

function collect(nodes: readonly XmlNode[], suites: readonly string[], suiteFile: string | undefined, into: TestResult[]): void {
  for (const node of nodes) {
    const tag = tagOf(node);
    if (tag === 'testcase') into.push(caseResult(node, suites, suiteFile));
    // The `<testsuites>` root only groups; its name (mocha's "Mocha Tests") is no suite of the tests.
    if (tag === 'testsuites') collect(childrenOf(node), suites, suiteFile, into);
    if (tag === 'testsuite') {
      const name = attr(node, 'name');
      collect(childrenOf(node), name === undefined ? suites : [...suites, name], attr(node, 'file') ?? suiteFile, into);
    }
  }
}

/**
 * Parses a JUnit XML report: a `<testsuites>` or `<testsuite>` root, suites nested to any depth, test cases
 * directly under `<testsuites>` (as node's reporter writes top-level tests). `<failure>` and `<error>` make a
 * case fail, `<skipped>` makes it skip and `<skipped type="todo">` (node's TODO tests) makes it `todo`,
 * failing or not; a case's `file` and `line` attributes are kept, and a case without `file` takes its
 * suite's (its `declaredFile`). A failure's message is its `message` attribute and its body (the error as the
 * runner printed it, without frames in node's internals or dependencies); a case without a line takes it
 * from the first frame of that body in its file (or, without a file, the frame's file too).
 *
 *
 * A report's totals (`tests="N"`) are not compared with its cases: reporters disagree on what they count
 * (jest-junit leaves TODO tests and suites that failed to run out of them, mocha-junit-reporter counts
 * pending tests it does not write), so a JUnit report has no problems of its own.
 *
 * @throws {ReportParseError} when the text is not well-formed XML or its root is neither element.
 * @example
 * parseJUnit('<testsuite name="math"><testcase name="adds"/></testsuite>').tests;
 * // [{ name: 'adds', suite: 'math', status: 'pass' }]
 */
export function parseJUnit(xml: string): ParsedReport {
  const { parser, validate } = loadXml();
  const validation = validate(xml);
  if (validation !== true) {
    const { msg, line } = validation.err;
    throw new ReportParseError({ format: 'junit', message: `not well-formed XML at line ${line}: ${msg}` });
  }
  const root = (parser.parse(xml) as XmlNode[]).find((node) => {
    const tag = tagOf(node);
    return tag !== undefined && !tag.startsWith('?');
  });
  const tag = root === undefined ? undefined : tagOf(root);
  if (root === undefined || (tag !== 'testsuites' && tag !== 'testsuite')) {
    throw new ReportParseError({
      format: 'junit',
      message: `expected a <testsuites> or <testsuite> root element, got ${tag === undefined ? 'none' : `<${tag}>`}`,
    });
  }
  const tests: TestResult[] = [];
  collect([root], [], undefined, tests);
  return { tests, problems: [] };
}
