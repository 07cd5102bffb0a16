import { RedlineError } from './redline-error.js';

/**
 * Why admission refused or stopped. Every code but `admit.partial` is a refusal before anything was
 * written; `admit.partial` stopped while writing files into a directory, after some of them.
 */
export type AdmitErrorCode =
  | 'admit.unknown_run'
  | 'admit.chain_broken'
  | 'admit.not_sealed'
  | 'admit.not_complete'
  | 'admit.shadow_failed'
  | 'admit.not_approved'
  | 'admit.candidate_mismatch'
  | 'admit.malformed_record'
  | 'admit.no_directory'
  | 'admit.bad_path'
  | 'admit.conflict'
  | 'admit.no_baseline'
  | 'admit.bad_branch'
  | 'admit.branch_exists'
  | 'admit.partial';

/** One path behind a refusal; `file` is agent-supplied text. */
export interface AdmitProblem {
  readonly file: string;
  /** Why, without the path: `a symlink`, `changed since the run started`, `written`, … */
  readonly reason: string;
}

/**
 * Admission refused a run and wrote nothing, or (`admit.partial`) stopped partway through writing.
 * `headline` names the run and the refusal, `problems` lists every path behind it (all of them, not
 * only the first; for `admit.partial`, every path of the change and what became of it); `message` is
 * both, one path per line.
 */
export class AdmitError extends RedlineError {
  override readonly code: AdmitErrorCode;
  readonly runId: string;
  readonly headline: string;
  readonly problems: readonly AdmitProblem[];

  constructor({
    code,
    runId,
    headline,
    problems = [],
    cause,
  }: {
    code: AdmitErrorCode;
    runId: string;
    headline: string;
    problems?: readonly AdmitProblem[];
    cause?: unknown;
  }) {
    super({ code, message: [headline, ...problems.map(({ file, reason }) => `  ${file}: ${reason}`)].join('\n'), cause });
    this.name = 'AdmitError';
    this.code = code;
    this.runId = runId;
    this.headline = headline;
    this.problems = Object.freeze([...problems]);
  }
}
