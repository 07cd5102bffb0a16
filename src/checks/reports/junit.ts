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

function caseResult(testcase: XmlNode, suites: readonly string[], suiteFile: string | undefined): TestResult {
  const name = attr(testcase, 'name');
  if (name === undefined) throw new ReportParseError({ format: 'junit', message: 'a <testcase> has no name attribute' });
  const children = childrenOf(testcase);
  const problem = children.find((child) => tagOf(child) === 'failure' || tagOf(child) === 'error');
  // A skipped case that also failed is a TODO test (node's reporter writes both); TODO failures do not count.
  const skipped = children.some((child) => tagOf(child) === 'skipped');
  const file = attr(testcase, 'file') ?? suiteFile;
  const line = Number.parseInt(attr(testcase, 'line') ?? '', 10);
  const message = problem === undefined ? undefined : (attr(problem, 'message') ?? textOf(problem).split('\n')[0]);
  return {
    name,
    ...(suites.length > 0 ? { suite: suites.join(' > ') } : {}),
    ...(file === undefined ? {} : { file }),
    ...(Number.isInteger(line) ? { line } : {}),
    status: skipped ? 'skip' : problem === undefined ? 'pass' : 'fail',
    ...(skipped || !message ? {} : { message }),
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
 * `file` takes its suite's.
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
