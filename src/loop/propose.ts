import { applyProposal, normalPath, type Baseline, type Candidate } from '../core/candidate.js';
import type { Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import type { ProposerAccount } from '../core/proposer-account.js';
import { ProposerError } from '../errors/proposer-error.js';
import { proposerAccountSchema } from '../proposers/account-schema.js';
import { PROPOSER_CHECK } from '../proposers/no-change.js';
import type { Proposal, ProposalRequest, ProposeOptions, Proposer, Usage } from '../proposers/proposer.js';
import { reportedUsage, validateProposal } from '../proposers/validate-proposal.js';
import { Aborted, raceSignal } from '../run/abort.js';
import { skipAll } from '../checks/run-checks.js';

/**
 * What asking the proposer gave: the candidate it leads to; `unchanged` when that is the latest candidate
 * again (no check needs to run); or the error that stands in for it (with the proposal, when one was made
 * and then refused). Each with the proposer's account, when its program gave one.
 */
export type Proposed = (
  | { readonly proposal: Proposal; readonly candidate: Candidate }
  | { readonly proposal: Proposal; readonly unchanged: true }
  | { readonly proposal?: Proposal; readonly error: ProposerError }
) & { readonly account?: ProposerAccount };

export interface ProposeStepOptions {
  readonly proposer: Proposer;
  readonly request: ProposalRequest;
  readonly options: ProposeOptions;
  /** The latest candidate, which the proposal's files are applied on top of. */
  readonly latest: Candidate;
  readonly baseline: Baseline;
  /** Why the proposed paths cannot be written on the snapshot (none without a workspace). */
  readonly pathProblems: (files: Record<string, string | null>) => readonly string[];
}

/** The account a proposer set on an answer the protocol then refused, when it has the account's shape. */
function accountIn(answer: unknown): ProposerAccount | undefined {
  const parsed = proposerAccountSchema.safeParse((answer as { account?: unknown } | null | undefined)?.account);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Asks the proposer for the next candidate, raced with the run's signal. A bad proposal — bad JSON, exit ≠ 0,
 * timeout, over the cap, a bad shape, a path through a symlink or out of the snapshot — or a proposer that
 * throws becomes a `ProposerError`, not a crashed run. A proposal that leads to the latest candidate again
 * (same hash) is `unchanged`.
 * @throws {Aborted} when the run's signal fires first.
 */
export async function propose({ proposer, request, options, latest, baseline, pathProblems }: ProposeStepOptions): Promise<Proposed> {
  let answer: unknown;
  let proposal: Proposal | undefined;
  try {
    answer = await raceSignal(proposer.propose(request, options), options.signal);
    proposal = validateProposal(answer);
    const account = proposal.account === undefined ? {} : { account: proposal.account };
    // Every path, as proposed on top of the latest candidate, must be writable on the snapshot without leaving it.
    const proposed: Record<string, string | null> = { ...latest.files };
    for (const [file, content] of Object.entries(proposal.files ?? {})) proposed[normalPath(file)] = content;
    const problems = pathProblems(proposed);
    if (problems.length > 0) throw new ProposerError({ code: 'proposer.bad_path', message: `the proposal names ${problems.join('; ')}` });
    const candidate = applyProposal(latest, proposal.files, proposal.value, baseline);
    return candidate.hash === latest.hash ? { proposal, unchanged: true, ...account } : { proposal, candidate, ...account };
  } catch (error) {
    if (error instanceof Aborted) throw error;
    const failure =
      error instanceof ProposerError
        ? error
        : new ProposerError({
            code: 'proposer.failed',
            message: `the proposer threw: ${(error as Error)?.message ?? String(error)}`,
            cause: error,
          });
    const account = failure.account ?? proposal?.account ?? accountIn(answer);
    return { ...(proposal === undefined ? {} : { proposal }), error: failure, ...(account === undefined ? {} : { account }) };
  }
}

/** The findings of an attempt whose proposal failed: the proposer's error, and every check skipped. */
export function proposerErrorFindings(error: ProposerError, checks: readonly Check[]): Finding[] {
  return [
    {
      check: PROPOSER_CHECK,
      stage: 'fast',
      tier: 'format',
      status: 'error',
      reasonCodes: [error.code],
      message: error.message,
      ...(error.output === undefined ? {} : { evidenceRef: error.output }),
    },
    ...skipAll(checks, 'proposer_error'),
  ];
}

/** What an attempt spent: a proposal refused after it was made, or a failed agent that reported usage, still spent it. */
export function spent(proposed: Proposed): Usage {
  return proposed.proposal?.usage ?? ('error' in proposed ? reportedUsage(proposed.error.usage) : undefined) ?? {};
}
