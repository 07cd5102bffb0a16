/** Outcome of one test. TODO tests count as `skip`: they neither prove nor break anything. */
export type TestStatus = 'pass' | 'fail' | 'skip';

/** One test as a runner reported it, the same shape whatever the report format. */
export interface TestResult {
  readonly name: string;
  /** Enclosing suites, outermost first, joined with ` > `; absent for top-level tests. */
  readonly suite?: string;
  /** As the report wrote it: absolute, relative to the runner's cwd, or a `file://` URL. */
  readonly file?: string;
  readonly line?: number;
  readonly status: TestStatus;
  /** Why a failing test failed. */
  readonly message?: string;
}

/** Report formats redline reads: JUnit XML, TAP 13/14, and the node test runner's `spec` output. */
export type ReportFormat = 'junit' | 'tap' | 'node-spec';
