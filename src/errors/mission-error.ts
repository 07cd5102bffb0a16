import { RedlineError } from './redline-error.js';

/** One thing wrong with a mission: where, what was expected, and what was found. */
export interface MissionIssue {
  /** Dotted path into the mission, e.g. `checks[1].timeout`; `(root)` for the whole document. */
  readonly path: string;
  readonly expected: string;
  readonly got: string;
  readonly message: string;
}

/** A mission file or object (or a file in mission syntax, such as a policy file) that cannot be run. Nothing was started. */
export class MissionError extends RedlineError {
  readonly source: string;
  readonly issues: readonly MissionIssue[];

  /** @param what what `source` is, for the message: `mission` unless told (`policy file`). */
  constructor({ source, issues, what = 'mission' }: { source: string; issues: readonly MissionIssue[]; what?: string }) {
    super({
      code: 'mission.invalid',
      message: `Invalid ${what} ${source}:\n${issues.map((issue) => `  - ${issue.path}: ${issue.message}`).join('\n')}`,
    });
    this.name = 'MissionError';
    this.source = source;
    this.issues = Object.freeze([...issues]);
  }
}
