import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { inheritedEnv, runProcess, type ProcessResult } from '../process/run-process.js';
import { normalPath } from '../core/candidate.js';
import { malformedPath } from '../workspace/path-rules.js';
import { removeInside } from '../workspace/safe-fs.js';
import { checkSandbox, finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding, Stage } from '../core/finding.js';
import { FRESH_REPORT, REPORT_VARIABLE, withFreshReport } from './fresh-report.js';
import { missingScriptFinding, processErrorFinding, tail } from './process-finding.js';
import { readReport } from './reports/index.js';
import { inventoryOf } from './test-identity.js';
import { reportFindings } from './report-findings.js';
import type { ParsedReport, ReportFormat } from './reports/test-result.js';

export interface TestRunnerCheckOptions {
  readonly name: string;
  /** Runs with `REDLINE_REPORT` in its environment: a fresh report path (see `reportFile`). */
  readonly command: string | readonly string[];
  readonly format: ReportFormat;
  /**
   * Where the report is read from: `'$REDLINE_REPORT'` for the fresh path the command gets in that
   * environment variable (a file not there yet, in a directory made for this one check run, outside the
   * check's copy, removed after it); or a path relative to the check's copy, for a runner whose own config
   * writes there (removed right before the command runs, and one of the check's `outputs`). The command's
   * stdout when absent.
   */
  readonly reportFile?: string;
  /**
   * Stated removals: patterns of the baseline's test cases (see `casePattern`: `*` for any run of
   * characters) that may go missing from the report or be skipped. The check still passes, and says so
   * with a `test.allowed_missing:<id>` reason code per such case; a run it accepts is at best `sampled`.
   * @default []
   */
  readonly allowMissing?: readonly string[];
  /** @default 'fast' */
  readonly stage?: Stage;
  /** @default true */
  readonly required?: boolean;
  /** @default 60000 */
  readonly timeoutMs?: number;
  /** @default 1048576 */
  readonly outputCap?: number;
}

/** The report's text, or the `error` finding that says why there is none. */
async function reportText(
  check: Pick<Check, 'name' | 'stage' | 'tier'>,
  { reportFile, fresh, dir, result }: { reportFile?: string; fresh: string; dir: string; result: ProcessResult },
): Promise<string | Finding> {
  if (reportFile === undefined) return result.stdout;
  try {
    return await readFile(reportFile === FRESH_REPORT ? fresh : path.join(dir, reportFile), 'utf8');
  } catch {
    return finding(
      check,
      'error',
      ['report.missing'],
      `the command did not write ${reportFile} (exit ${result.exitCode})\n${tail(result.stderr)}`,
    );
  }
}

/**
 * Demand red line: runs a test command and reads its JUnit XML, TAP or node test runner report. It fails
 * on every failing test (one finding each), on what is wrong with the report as a whole (a TAP stream
 * without its plan, or one that bailed out), on an exit status the report contradicts, on zero tests
 * passed, and, on a candidate, on every test case the baseline's report held that this one lost. Each
 * report's cases go to the run's inventory channel. Reason codes, test names, files and messages hold no
 * path of the check's copy or of another temp dir, so two attempts' findings compare (see `inventoryOf`).
 * Docs: "What a demand check can and cannot defend against" in docs/checks.md.
 *
 * @example
 * testRunnerCheck({ name: 'tests', command: 'node --test --test-reporter=tap test/', format: 'tap' });
 */
export function testRunnerCheck({
  name,
  command,
  format,
  reportFile,
  allowMissing = [],
  stage = 'fast',
  required = true,
  timeoutMs = 60_000,
  outputCap = 1_048_576,
}: TestRunnerCheckOptions): Check {
  const check = { name, stage, tier: 'demand' as const, required };
  const inCopy = reportFile !== undefined && reportFile !== FRESH_REPORT && malformedPath(reportFile) === undefined;
  const patterns = Object.freeze([...allowMissing]);
  return {
    ...check,
    outputs: inCopy ? [normalPath(reportFile)] : [],
    async run(context: CheckContext): Promise<Finding[]> {
      const { dir, signal } = context;
      if (dir === undefined) return [finding(check, 'error', ['check.no_workspace'], 'a test-runner check needs a mission workspace')];
      // A report left in the copy (a local run, a candidate's file) must not pass for this run's: it is removed first.
      if (inCopy) removeInside(dir, normalPath(reportFile), { onObstacle: 'replace' });
      return withFreshReport(async (fresh) => {
        const { sandbox } = checkSandbox(context);
        const result = await runProcess({
          command,
          cwd: dir,
          timeoutMs,
          outputCap,
          signal,
          env: { ...inheritedEnv(), [REPORT_VARIABLE]: fresh.file },
          ...(sandbox === undefined ? {} : { sandbox: { ...sandbox, writable: [...sandbox.writable, fresh.dir] } }),
        });
        const error = processErrorFinding(check, result, timeoutMs) ?? missingScriptFinding(check, { command, cwd: dir, result });
        if (error !== undefined) return [error];
        const text = await reportText(check, { ...(reportFile === undefined ? {} : { reportFile }), fresh: fresh.file, dir, result });
        if (typeof text !== 'string') return [text];
        let report: ParsedReport;
        try {
          report = readReport(format, text);
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
        const inventory = inventoryOf(report.tests, dir);
        context.inventory?.record(name, inventory);
        const baseline = context.inventory?.baseline(name);
        return reportFindings(check, {
          report,
          inventory,
          dir,
          result,
          allowMissing: patterns,
          ...(baseline === undefined ? {} : { baseline }),
        });
      });
    },
  };
}
