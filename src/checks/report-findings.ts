import type { ProcessResult } from '../process/run-process.js';
import { finding, type Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { ALLOWED_MISSING_CODE, inventoryCounts, type TestInventory } from '../core/test-inventory.js';
import { compareInventory } from './inventory-comparison.js';
import { inventoryFindings } from './inventory-findings.js';
import { tail } from './process-finding.js';
import type { ParsedReport, TestResult } from './reports/test-result.js';
import { failureIdentities, relativeTo, tempPathScrubber, testId, withoutTempPaths } from './test-identity.js';

type CheckFields = Pick<Check, 'name' | 'stage' | 'tier'>;

/** Characters of a failing test's message kept in its finding. */
const MESSAGE_CAP = 4000;

function capped(text: string): string {
  return text.length <= MESSAGE_CAP ? text : `${text.slice(0, MESSAGE_CAP)}…`;
}

/** One `fail` finding per failing test, under its stable identity (see `failureIdentities`). */
function failureFindings(check: CheckFields, failed: readonly TestResult[], dir: string): Finding[] {
  const identities = failureIdentities(failed, dir);
  const scrub = tempPathScrubber(dir);
  return failed.map((test, index) => {
    const id = scrub(testId(test));
    return finding(
      check,
      'fail',
      [`test.failed:${identities[index]}`],
      capped(test.message === undefined ? `${id} failed` : scrub(test.message)),
      {
        location: {
          test: id,
          ...(test.file === undefined ? {} : { file: relativeTo(dir, test.file, scrub) }),
          ...(test.line === undefined ? {} : { line: test.line }),
        },
      },
    );
  });
}

/** What the command's exit status says against its report: failing tests under exit 0, or no failing test under another. */
function exitFindings(check: CheckFields, failed: number, passed: number, result: ProcessResult): Finding[] {
  const tests = `${failed} failing test${failed === 1 ? '' : 's'}`;
  if (failed > 0 && result.exitCode === 0)
    return [finding(check, 'fail', ['test.exit_zero_with_failures'], `the command exited 0 but its report has ${tests}`)];
  if (failed > 0 || passed === 0) return [];
  if (result.exitCode !== 0)
    return [
      finding(
        check,
        'fail',
        ['test.exit_nonzero'],
        `every reported test passed but the command exited ${result.exitCode}\n${tail(result.stderr)}`,
      ),
    ];
  return [];
}

export interface ReportEvidence {
  readonly report: ParsedReport;
  /** The report's cases (see `inventoryOf`). */
  readonly inventory: TestInventory;
  /** What the same check's report held on the run's baseline; absent at the baseline itself. */
  readonly baseline?: TestInventory;
  /** Patterns of baseline cases that may go missing or be skipped (see `casePattern`). */
  readonly allowMissing: readonly string[];
  /** The check's copy: paths under it become relative. */
  readonly dir: string;
  readonly result: ProcessResult;
}

/**
 * A test-runner check's findings on a report it read: a `fail` finding for each problem of the report as a
 * whole, each failing test, an exit status the report contradicts, zero tests passed, and each baseline case
 * the report lost; otherwise one `pass` finding that counts what passed (new cases too) and names every
 * stated removal (`test.allowed_missing:<id>`).
 */
export function reportFindings(check: CheckFields, { report, inventory, baseline, allowMissing, dir, result }: ReportEvidence): Finding[] {
  const failed = report.tests.filter((test) => test.status === 'fail');
  const counts = inventoryCounts(inventory);
  const comparison = baseline === undefined ? undefined : compareInventory(baseline, inventory, allowMissing);
  const findings = [
    ...report.problems.map((problem) => finding(check, 'fail', [problem.code], withoutTempPaths(problem.message, dir))),
    ...failureFindings(check, failed, dir),
    ...exitFindings(check, failed.length, counts.pass, result),
    ...(failed.length === 0 && counts.pass === 0
      ? [finding(check, 'fail', ['test.none_passed'], `no test passed (${counts.total} reported, exit ${result.exitCode})`)]
      : []),
    ...(comparison === undefined || baseline === undefined ? [] : inventoryFindings(check, comparison, baseline.cases.length)),
  ];
  if (findings.length > 0) return findings;
  const added = comparison === undefined || comparison.added === 0 ? '' : ` (${comparison.added} new)`;
  const others = [...(counts.skip > 0 ? [`${counts.skip} skipped`] : []), ...(counts.todo > 0 ? [`${counts.todo} todo`] : [])];
  const allowed = comparison?.allowed ?? [];
  const stated =
    allowed.length === 0
      ? ''
      : `; allowMissing let ${allowed.length} baseline test${allowed.length === 1 ? '' : 's'} go missing or skipped: ${allowed.map((item) => item.id).join(', ')}`;
  return [
    finding(
      check,
      'pass',
      allowed.map((item) => `${ALLOWED_MISSING_CODE}:${item.id}`),
      `${counts.pass} passed${added}${others.map((other) => `, ${other}`).join('')}${stated}`,
    ),
  ];
}
