import { reasonCodeCount } from '../checks/check-span.js';
import { PROPOSER_PROTOCOL } from '../proposers/proposer.js';
import { noChangeFindings } from '../proposers/no-change.js';
import { step } from '../state/step.js';
import type { WorkingState } from '../state/working-state.js';
import type { TraceSpan } from '../telemetry/trace-span.js';
import { Aborted } from '../run/abort.js';
import { attemptRecord } from '../run/attempt-record.js';
import { checkCandidate, type Checked } from './check-candidate.js';
import { decide, policyVerdict } from './decide.js';
import type { LoopState, UnderWay } from './loop-state.js';
import type { Stand } from './open-run.js';
import { propose, proposerErrorFindings, spent, type Proposed } from './propose.js';
import { checkContext, type RunContext } from './run-context.js';
import { proposalSpan, usageAttributes } from '../run/run-trace.js';
import { standing, StoppedAt } from './stopped-at.js';

/**
 * One attempt, in its own span: the proposal; its candidate checked in the check copy — or the proposer's
 * error, or, when the proposal changed nothing, no check at all (the latest findings still hold); the
 * working state stepped; the attempt recorded; the judge asked.
 * @throws {StoppedAt} with the attempt under way when anything under it throws (a stop between steps included).
 */
export async function attempt(context: RunContext, state: LoopState): Promise<Stand> {
  const number = state.working.attempt + 1;
  const underWay: UnderWay = { attempt: number, candidate: state.working.candidate };
  // Between steps: a run stopped while it recorded or decided starts no proposer, and made no attempt more.
  if (context.signal.aborted) throw new StoppedAt(state, new Aborted(context.signal.reason));
  return context.span.child({ name: 'redline.attempt', attributes: { 'redline.attempt.number': number } }, async (trace) => {
    const proposed = await standing(
      state,
      () =>
        trace.child(proposalSpan(context.proposer), async (proposalTrace) => {
          const answer = await proposeNext(context, state.working, number);
          proposalTrace.set(usageAttributes(spent(answer)));
          if ('error' in answer) proposalTrace.fail({ type: answer.error.code, message: answer.error.message });
          return answer;
        }),
      // A proposer still waiting for its work to arrive (an agent that has not submitted) had not begun this attempt.
      () => (context.proposer.idle?.() === true ? undefined : underWay),
    );
    const candidate = 'candidate' in proposed ? proposed.candidate : underWay.candidate;
    const { findings, isolation } = await standing(state, () => checked(context, state, { number, proposed, trace }), {
      attempt: number,
      candidate,
    });
    const usage = spent(proposed);
    const evidence = { candidate, findings, usage, account: proposed.account, elapsedMs: context.now() - context.startedAt };
    const stepped = step(state.working, evidence, context.stepContext);
    const scores = [...state.scores];
    scores[number - 1] = stepped.summary.score;
    const next: LoopState = { ...state, working: stepped.state, scores };
    if (trace.recording)
      trace.set({
        'redline.attempt.score': stepped.summary.score,
        'redline.reason_codes.count': reasonCodeCount(findings),
        ...usageAttributes(usage),
      });
    const ending = await standing(
      next,
      async () => {
        await context.recorder.append(attemptRecord({ evidence, stepped, isolation }));
        return decide(context, next, policyVerdict(context, next.working), trace);
      },
      { attempt: number, candidate: next.working.candidate },
    );
    return { state: next, ending };
  });
}

/** The findings of what the proposer gave: its candidate checked, its error, or the latest findings when it changed nothing. */
async function checked(
  context: RunContext,
  state: LoopState,
  { number, proposed, trace }: { number: number; proposed: Proposed; trace: TraceSpan },
): Promise<Checked> {
  if ('error' in proposed) return { findings: proposerErrorFindings(proposed.error, context.checks) };
  if ('unchanged' in proposed)
    return {
      findings: noChangeFindings({ latest: state.working.findings, account: proposed.account, kind: context.proposer.identity?.kind }),
    };
  const { checks, files, now } = context;
  return checkCandidate({ checks, candidate: proposed.candidate, context: checkContext(context, state, number), files, now, trace });
}

/** Asks the proposer for the candidate of attempt `number`. */
function proposeNext(context: RunContext, working: WorkingState, number: number): Promise<Proposed> {
  const { limits, now, startedAt, files, sandbox, proposerWorkspace } = context;
  return propose({
    proposer: context.proposer,
    request: {
      protocol: PROPOSER_PROTOCOL,
      mission: context.mission,
      attempt: number,
      state: {
        candidate: number === 1 ? null : working.candidate,
        findings: working.findings,
        budgetsLeft: {
          attempts: limits.maxAttempts - number + 1,
          ...(limits.maxTokens === undefined
            ? {}
            : { tokens: limits.maxTokens - working.counters.inputTokens - working.counters.outputTokens }),
          ...(limits.maxWallClockMs === undefined ? {} : { wallClockMs: limits.maxWallClockMs - (now() - startedAt) }),
          ...(limits.maxCostUsd === undefined ? {} : { costUsd: limits.maxCostUsd - working.counters.costUsd }),
        },
        completedChecks: working.frontier.completed,
        recentSignatures: working.signatures,
      },
    },
    options: {
      signal: context.signal,
      ...(proposerWorkspace === undefined ? {} : { workspace: proposerWorkspace }),
      ...(sandbox === undefined ? {} : { sandbox: sandbox.proposer }),
    },
    latest: working.candidate,
    baseline: context.baseline,
    pathProblems: (proposedFiles) => files?.candidateProblems(proposedFiles) ?? [],
  });
}
