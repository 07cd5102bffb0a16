import type { CaseStatus } from '../../core/test-inventory.js';

/**
 * Outcome of one test. `todo` (a TODO test, failing or not) is told apart from `skip`; neither proves nor
 * breaks anything.
 */
export type TestStatus = CaseStatus;

/** One test as a runner reported it, the same shape whatever the report format. */
export interface TestResult {
  readonly name: string;
  /** Enclosing suites, outermost first, joined with ` > `; absent for top-level tests. */
  readonly suite?: string;
  /** As the report wrote it: absolute, relative to the runner's cwd, or a `file://` URL. */
  readonly file?: string;
  readonly line?: number;
  /**
   * The file the report declares for the case in its own fields (JUnit's `file` attribute on the case or
   * an enclosing suite), as written. Never one read from a failure's stack: a passing case has none, and
   * a case keeps the same declared file whether it passes or fails.
   */
  readonly declaredFile?: string;
  readonly status: TestStatus;
  /** Why a failing test failed. */
  readonly message?: string;
}

/** Report formats redline reads: JUnit XML, TAP 13/14, and the node test runner's `spec` output. */
export type ReportFormat = 'junit' | 'tap' | 'node-spec';

/**
 * What is wrong with a report as a whole, whatever its tests say: a TAP stream without its plan
 * (`report.no_plan`), with more than one (`report.plan_repeated`), whose plan promises another number of
 * tests than it holds (`report.plan_mismatch`), or that bailed out (`report.bail_out`).
 */
export interface ReportProblem {
  readonly code: 'report.no_plan' | 'report.plan_repeated' | 'report.plan_mismatch' | 'report.bail_out';
  readonly message: string;
}

/** A report read whole: one result per test, in report order, and what is wrong with the stream. */
export interface ParsedReport {
  readonly tests: TestResult[];
  readonly problems: ReportProblem[];
}
