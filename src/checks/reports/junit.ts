import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ReportParseError } from './report-parse-error.js';
import type { TestResult } from './test-result.js';

/** An element as fast-xml-parser's `preserveOrder` mode gives it: `{ [tag]: children, ':@'?: attributes }`. */
type XmlNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  // Decodes numeric character references (`&#10;`), which reporters use for newlines in attributes.
  htmlEntities: true,
});

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

function caseResult(testcase: XmlNode, suites: readonly string[], suiteFile: string | undefined): TestResult {
  const name = attr(testcase, 'name');
  if (name === undefined) throw new ReportParseError({ format: 'junit', message: 'a <testcase> has no name attribute' });
  const children = childrenOf(testcase);
  const problem = children.find((child) => tagOf(child) === 'failure' || tagOf(child) === 'error');
  // A skipped case that also failed is a TODO test (node's reporter writes both); TODO failures do not count.
  const skipped = children.some((child) => tagOf(child) === 'skipped');
  const attrFile = attr(testcase, 'file') ?? suiteFile;
  const attrLine = Number.parseInt(attr(testcase, 'line') ?? '', 10);
  const { message, frames } = problem === undefined || skipped ? { frames: [] } : failureText(problem);
  const { file = attrFile, line = Number.isInteger(attrLine) ? attrLine : undefined } = Number.isInteger(attrLine)
    ? {}
    : frameLocation(frames, attrFile);
  return {
    name,
    ...(suites.length > 0 ? { suite: suites.join(' > ') } : {}),
    ...(file === undefined ? {} : { file }),
    ...(line === undefined ? {} : { line }),
    status: skipped ? 'skip' : problem === undefined ? 'pass' : 'fail',
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
 * case fail, `<skipped>` makes it skip; a case's `file` and `line` attributes are kept, and a case without
 * `file` takes its suite's. A failure's message is its `message` attribute and its body (the error as the
 * runner printed it, without frames in node's internals or dependencies); a case without a line takes it
 * from the first frame of that body in its file (or, without a file, the frame's file too).
 *
 * @throws {ReportParseError} when the text is not well-formed XML or its root is neither element.
 * @example
 * parseJUnit('<testsuite name="math"><testcase name="adds"/></testsuite>');
 * // [{ name: 'adds', suite: 'math', status: 'pass' }]
 */
export function parseJUnit(xml: string): TestResult[] {
  const validation = XMLValidator.validate(xml);
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
  const results: TestResult[] = [];
  collect([root], [], undefined, results);
  return results;
}
