import { parseJUnit } from './junit.js';
import { parseNodeSpec } from './node-spec.js';
import { parseTap } from './tap.js';
import type { ReportFormat, TestResult } from './test-result.js';

export { parseJUnit } from './junit.js';
export { parseNodeSpec } from './node-spec.js';
export { parseTap } from './tap.js';
export { ReportParseError } from './report-parse-error.js';
export type { ReportFormat, TestResult, TestStatus } from './test-result.js';

const parsers: Readonly<Record<ReportFormat, (text: string) => TestResult[]>> = {
  junit: parseJUnit,
  tap: parseTap,
  'node-spec': parseNodeSpec,
};

/**
 * Turns a test runner's report into one result per test.
 *
 * @throws {TypeError} when `format` is not a known report format.
 * @throws {ReportParseError} when `text` is not a report of that format.
 * @example
 * parseReport('tap', 'TAP version 13\nok 1 - adds\n1..1\n');
 * // [{ name: 'adds', status: 'pass' }]
 */
export function parseReport(format: ReportFormat, text: string): TestResult[] {
  const parser = Object.hasOwn(parsers, format) ? parsers[format] : undefined;
  if (parser === undefined) throw new TypeError(`Expected a report format of ${Object.keys(parsers).join(', ')}, got ${String(format)}`);
  return parser(text);
}
