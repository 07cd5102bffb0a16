import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runProcess } from '../process/run-process.js';
import { normalPath } from '../core/candidate.js';
import { malformedPath } from '../workspace/path-rules.js';
import { removeInside } from '../workspace/safe-fs.js';
import { checkSandbox, finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding, Stage } from '../core/finding.js';
import { missingScriptFinding, processErrorFinding, tail } from './process-finding.js';
import { parseReport } from './reports/index.js';
import { failureIdentities, withoutTempPaths } from './test-identity.js';
import type { ReportFormat, TestResult } from './reports/test-result.js';

export interface TestRunnerCheckOptions {
  readonly name: string;
  readonly command: string | readonly string[];
  readonly format: ReportFormat;
  /** Report file relative to the candidate copy; the command's stdout when absent. */
  readonly reportFile?: string;
  /** @default 'fast' */
  readonly stage?: Stage;
  /** @default true */
  readonly required?: boolean;
  /** @default 60000 */
  readonly timeoutMs?: number;
  /** @default 1048576 */
  readonly outputCap?: number;
}

/** Characters of a failing test's message kept in its finding. */
const MESSAGE_CAP = 4000;

function capped(text: string): string {
  return text.length <= MESSAGE_CAP ? text : `${text.slice(0, MESSAGE_CAP)}…`;
}

/** A test's file relative to the copy the check ran in (a report may give it absolute or as a URL). */
function relativeTo(dir: string, file: string): string {
  const plain = file.startsWith('file://') ? new URL(file).pathname : file;
  const stable = withoutTempPaths(plain, dir);
  return stable === plain && path.isAbsolute(plain) ? path.relative(dir, plain) : stable;
}

function testId(result: TestResult, dir: string): string {
  return withoutTempPaths(result.suite === undefined ? result.name : `${result.suite} > ${result.name}`, dir);
}

/**
 * Demand red line: runs a test command and turns its JUnit XML, TAP or node test runner report into
 * one finding per failing test. Zero tests run is a failure, not a pass. Reason codes, test names, files
 * and messages hold no path of the check's copy or of another temp dir, so two attempts' findings compare
 * (see {@link failureIdentities}).
 */
export function testRunnerCheck({
  name,
  command,
  format,
  reportFile,
  stage = 'fast',
  required = true,
  timeoutMs = 60_000,
  outputCap = 1_048_576,
}: TestRunnerCheckOptions): Check {
  const check = { name, stage, tier: 'demand' as const, required };
  return {
    ...check,
    async run(context: CheckContext): Promise<Finding[]> {
      const { dir, signal } = context;
      if (dir === undefined) return [finding(check, 'error', ['check.no_workspace'], 'a test-runner check needs a mission workspace')];
      // A report left in the workspace (from a local run) must not pass for this run's: it is removed first.
      if (reportFile !== undefined && malformedPath(reportFile) === undefined)
        removeInside(dir, normalPath(reportFile), { onObstacle: 'replace' });
      const result = await runProcess({ command, cwd: dir, timeoutMs, outputCap, signal, ...checkSandbox(context) });
      const error = processErrorFinding(check, result, timeoutMs);
      if (error !== undefined) return [error];
      const missing = missingScriptFinding(check, { command, cwd: dir, result });
      if (missing !== undefined) return [missing];
      let report = result.stdout;
      if (reportFile !== undefined) {
        try {
          report = await readFile(path.join(dir, reportFile), 'utf8');
        } catch {
          return [
            finding(
              check,
              'error',
              ['report.missing'],
              `the command did not write ${reportFile} (exit ${result.exitCode})\n${tail(result.stderr)}`,
            ),
          ];
        }
      }
      let tests: TestResult[];
      try {
        tests = parseReport(format, report);
      } catch (parseError) {
        return [
          finding(
            check,
            'error',
            ['report.unparseable'],
            `${(parseError as Error).message} (exit ${result.exitCode})\n${tail(result.stderr)}`,
          ),
        ];
      }
      const failed = tests.filter((test) => test.status === 'fail');
      if (failed.length > 0) {
        const identities = failureIdentities(failed, dir);
        return failed.map((test, index) =>
          finding(
            check,
            'fail',
            [`test.failed:${identities[index]}`],
            capped(test.message === undefined ? `${testId(test, dir)} failed` : withoutTempPaths(test.message, dir)),
            {
              location: {
                test: testId(test, dir),
                ...(test.file === undefined ? {} : { file: relativeTo(dir, test.file) }),
                ...(test.line === undefined ? {} : { line: test.line }),
              },
            },
          ),
        );
      }
      if (tests.filter((test) => test.status === 'pass').length === 0) {
        return [finding(check, 'fail', ['test.none_passed'], `no test passed (${tests.length} reported, exit ${result.exitCode})`)];
      }
      if (result.exitCode !== 0) {
        return [
          finding(
            check,
            'fail',
            ['test.exit_nonzero'],
            `every reported test passed but the command exited ${result.exitCode}\n${tail(result.stderr)}`,
          ),
        ];
      }
      const skipped = tests.filter((test) => test.status === 'skip').length;
      return [finding(check, 'pass', [], `${tests.length - skipped} passed${skipped > 0 ? `, ${skipped} skipped` : ''}`)];
    },
  };
}
