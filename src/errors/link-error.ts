import { RedlineError } from './redline-error.js';

/** Why a run cannot resolve the run it names. */
export type LinkProblem = 'unknown_run' | 'not_sealed' | 'not_resolvable' | 'other_mission';

/**
 * A new run was asked to resolve (link to) a run it cannot: one that is not in the ledger, not sealed yet,
 * sealed with an outcome other than `blocked` or `failed_with_evidence`, or of another mission. Nothing
 * was recorded.
 */
export class LinkError extends RedlineError {
  /** The run named to be resolved. */
  readonly runId: string;
  readonly problem: LinkProblem;

  constructor({ runId, problem, message }: { runId: string; problem: LinkProblem; message: string }) {
    super({ code: `run.link_${problem}`, message });
    this.name = 'LinkError';
    this.runId = runId;
    this.problem = problem;
  }
}
