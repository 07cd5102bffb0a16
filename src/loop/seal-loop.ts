import type { Check } from '../core/check.js';
import { verificationOf } from '../core/acceptance.js';
import type { ShadowResult } from '../core/shadow-verdict.js';
import { SCOPE_CHECK } from '../checks/scope-check.js';
import type { Ending } from '../run/ending.js';
import { learnFrom, recordedScores } from './learn.js';
import type { LoopState, UnderWay } from './loop-state.js';
import type { RunContext } from './run-context.js';
import type { RunResult } from './run-options.js';
import { traceSeal } from '../run/run-trace.js';
import { sealRun } from '../run/seal.js';
import { runShadow } from './shadow.js';
import { workspaceAtSeal } from './workspace-at-seal.js';

/**
 * Seals the run where it stands — every ending (the loop's, a stop, a runtime error) goes through here —
 * on the attempt and candidate under way (by default the last ones made), then teaches the priors what
 * it observed and returns the run's result.
 */
export async function sealLoop(
  context: RunContext,
  state: LoopState,
  ending: Ending,
  underWay: UnderWay = { attempt: state.working.attempt, candidate: state.working.candidate },
): Promise<RunResult> {
  const { mission, files, recorder, options, shadowChecks, handoffPlan, underReview, ledger } = context;
  const { working } = state;
  const { attempt, candidate } = underWay;
  context.timer?.clear();
  const verification = verificationOf(ending.outcome, context.checks, working.findings);
  const counters = { ...working.counters, elapsedMs: context.now() - context.startedAt };
  let changed: readonly string[] = [];
  const { data, brief } = await sealRun({
    runId: recorder.runId,
    ending,
    verification,
    position: {
      attempt,
      candidate,
      findings: working.findings,
      ...(working.account === undefined ? {} : { account: working.account }),
      counters,
    },
    mission: { goal: mission.goal, taskType: mission.taskType, priority: mission.priority, stripPatterns: mission.brief?.stripPatterns },
    baseline: files === undefined ? undefined : (file) => files.baselineFile(file),
    handoff: options.handoff === undefined || !underReview ? undefined : { handoff: options.handoff, plan: handoffPlan },
    atSeal: async () => {
      const workspace = await workspaceAtSeal(files, candidate.footprint);
      changed = workspace.changed;
      const shadow = shadowChecks.length === 0 ? undefined : await shadowAtSeal(context, underWay);
      return { ...workspace.data, ...(shadow === undefined ? {} : { shadow }) };
    },
    append: (sealData) => recorder.seal(sealData),
  });
  traceSeal(context.span, { ending, verification, attempts: attempt, chainHead: recorder.lastHash, findings: working.findings, counters });
  // A resumed run's earlier attempts ran in another process: their scores are in the records.
  const scores = context.resumedFrom === undefined ? state.scores : recordedScores(await ledger.records(recorder.runId));
  await learnFrom(ledger, mission.taskType, scores);
  const { outcome, stopReason, detail, guard } = ending;
  return {
    runId: recorder.runId,
    mission: mission.id,
    outcome,
    verification,
    stopReason,
    detail,
    ...(guard === undefined ? {} : { guard }),
    attempts: attempt,
    candidate,
    findings: working.findings,
    counters,
    ...(brief === undefined ? {} : { brief }),
    ...(changed.length === 0 ? {} : { workspaceChanged: changed }),
    ...(data.shadow === undefined ? {} : { shadow: data.shadow }),
  };
}

/**
 * The shadow checks on the candidate the loop stopped on (the baseline when it made none), in the check
 * copy. Only the caller's signal stops them: a run cut off by its wall-clock budget still gets its verdict.
 */
async function shadowAtSeal(context: RunContext, { attempt, candidate }: UnderWay): Promise<ShadowResult> {
  const { files, sandbox, options } = context;
  const result = await runShadow({
    checks: context.shadowChecks,
    now: context.now,
    context: {
      candidate,
      goal: context.mission.goal,
      attempt,
      signal: options.signal ?? new AbortController().signal,
      ...(sandbox === undefined ? {} : { sandbox: sandbox.checks }),
    },
    ...(files === undefined
      ? {}
      : {
          copy: () => files.checkCopy(candidate.files, { verify: true }),
          scope: context.checks.find((item) => item.name === SCOPE_CHECK) as Check,
        }),
  });
  // Its checks ended: the walk after them may go on with the check copy's state.
  files?.checkSetEnded();
  return result;
}
