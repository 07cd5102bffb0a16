import { RedlineError } from '../errors/redline-error.js';

/** Why admission refused. None of them wrote anything. */
export type AdmitErrorCode =
  | 'admit.unknown_run'
  | 'admit.chain_broken'
  | 'admit.not_sealed'
  | 'admit.not_complete'
  | 'admit.candidate_mismatch'
  | 'admit.malformed_record'
  | 'admit.no_directory'
  | 'admit.bad_path'
  | 'admit.conflict'
  | 'admit.no_baseline'
  | 'admit.bad_branch'
  | 'admit.branch_exists';

/** One path behind a refusal; `file` is agent-supplied text. */
export interface AdmitProblem {
  readonly file: string;
  /** Why, without the path: `a symlink`, `changed since the run started`, … */
  readonly reason: string;
}

/**
 * Admission refused a run; nothing was written. `headline` names the run and the refusal, `problems`
 * lists every path behind it (all of them, not only the first); `message` is both, one path per line.
 */
export class AdmitError extends RedlineError {
  override readonly code: AdmitErrorCode;
  readonly runId: string;
  readonly headline: string;
  readonly problems: readonly AdmitProblem[];

  constructor({ code, runId, headline, problems = [] }: { code: AdmitErrorCode; runId: string; headline: string; problems?: readonly AdmitProblem[] }) {
    super({ code, message: [headline, ...problems.map(({ file, reason }) => `  ${file}: ${reason}`)].join('\n') });
    this.name = 'AdmitError';
    this.code = code;
    this.runId = runId;
    this.headline = headline;
    this.problems = Object.freeze([...problems]);
  }
}
