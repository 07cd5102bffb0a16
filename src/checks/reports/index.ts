import { parseJUnit } from './junit.js';
import { parseNodeSpec } from './node-spec.js';
import { parseTap } from './tap.js';
import type { ParsedReport, ReportFormat } from './test-result.js';

export { parseJUnit } from './junit.js';
export { parseNodeSpec } from './node-spec.js';
export { parseTap } from './tap.js';
export { ReportParseError } from './report-parse-error.js';
export type { ParsedReport, ReportFormat, ReportProblem, TestResult, TestStatus } from './test-result.js';

const parsers: Readonly<Record<ReportFormat, (text: string) => ParsedReport>> = {
  junit: parseJUnit,
  tap: parseTap,
  'node-spec': parseNodeSpec,
};

/**
 * Reads a test runner's report whole: one result per test, and what is wrong with the report as a whole
 * (a TAP stream without its plan, with a plan that counts other tests than it holds, or that bailed out).
 *
 * @throws {TypeError} when `format` is not a known report format.
 * @throws {ReportParseError} when `text` is not a report of that format.
 * @example
 * readReport('tap', 'TAP version 13\nok 1 - adds\n');
 * // { tests: [{ name: 'adds', status: 'pass' }],
 * //   problems: [{ code: 'report.no_plan', message: 'the TAP stream has no plan (1..N) after 1 top-level test: …' }] }
 */
export function readReport(format: ReportFormat, text: string): ParsedReport {
  const parser = Object.hasOwn(parsers, format) ? parsers[format] : undefined;
  if (parser === undefined) throw new TypeError(`Expected a report format of ${Object.keys(parsers).join(', ')}, got ${String(format)}`);
  return parser(text);
}
