import { Baseline } from '../core/candidate.js';
import { proposerNoun } from '../core/proposer-account.js';
import { buildChecks } from '../roles/build-checks.js';
import { buildJudge } from '../roles/build-judge.js';
import { buildProposer } from '../roles/build-proposer.js';
import { policyLookback, type BudgetLimits } from '../guards/guard.js';
import { runtimeGuards } from '../guards/no-change.js';
import { buildPolicy, defaultGuards, needsPriors } from '../guards/spec.js';
import { isDeferred, planHandoff } from '../handoff/handoff.js';
import { MemoryLedger } from '../ledger/memory/memory-ledger.js';
import { missionHash, setsMaxAttempts } from '../mission/mission.js';
import type { ProposerWorkspace } from '../proposers/proposer.js';
import { planHash } from '../state/signature.js';
import type { StepContext } from '../state/step.js';
import { initialState } from '../state/working-state.js';
import { RunWorkspace } from '../workspace/run-workspace.js';
import { loadPriors } from './learn.js';
import { admitPlan } from './plan-admission.js';
import type { ResumePoint } from './loop-state.js';
import { runPlanOf } from '../run/run-plan.js';
import type { RunMissionOptions } from './run-options.js';
import { assertRunnable, assertSamePlan, checkPlan, sandboxOf, startWorkspace } from './run-setup.js';
import type { PreparedRun } from './run-context.js';

/**
 * Builds the roles, admits the plan (a new run), builds the checks and guards, sets the budgets, reads the
 * workspace into the run's snapshot (or reopens a resumed run's) and restores a resumed run's state.
 * @throws {MissionError} when the mission cannot run as given, or a resumed run's checks are not the ones it started with.
 */
export async function prepareRun(options: RunMissionOptions, runId: string, resume: ResumePoint | undefined): Promise<PreparedRun> {
  const { mission, ledger = new MemoryLedger() } = options;
  const now = options._internal?.now ?? Date.now;
  const limited = options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter };
  const proposer = options.proposer ?? (await buildProposer(mission, limited));
  const judge =
    options.judge ??
    (await buildJudge(mission, {
      ...limited,
      ...(options.handoff === undefined || isDeferred(options.handoff) ? {} : { queue: options.handoff.queue }),
    }));
  await assertRunnable(mission, proposer);
  const runPlan = runPlanOf(mission, proposer, { label: options.planLabel });
  // A new run's plan and link are decided before anything is recorded; a resumed run started with them.
  const admitted =
    resume === undefined
      ? await admitPlan({
          ledger,
          missionId: mission.id,
          plan: runPlan,
          resolves: options.resolves,
          note: options.note,
          forceSamePlan: options.forceSamePlan,
        })
      : {};
  // Shadow checks are not part of the loop's plan: no signature, frontier, acceptance or judge ever sees them.
  const allChecks = checkPlan(mission, await buildChecks(mission, limited), options.checks ?? []);
  const checks = allChecks.filter((item) => item.shadow !== true);
  const specs = mission.stopPolicy.guards ?? defaultGuards();
  // `adaptive` stops on what finished runs of this task type taught it: loaded once, before the first attempt
  // (a resumed run loads them again, and sees what runs sealed in between taught).
  const priors = options.guards === undefined && needsPriors(specs) ? await loadPriors(ledger, mission.taskType) : undefined;
  // The runtime's own guards (an agent that changes nothing, the budgets) come first, whatever the policy.
  const guards = [
    ...runtimeGuards(proposerNoun(proposer.identity?.kind)),
    ...(options.guards ?? buildPolicy(specs, priors === undefined ? {} : { priors })),
  ];
  const stepContext: StepContext = {
    required: new Set(checks.filter((check) => check.required).map((check) => check.name)),
    promotion: new Set(checks.filter((check) => check.required && check.stage === 'promotion').map((check) => check.name)),
    plan: planHash(checks),
    lookback: Math.max(policyLookback(guards), mission.progressWindow),
  };
  const startHash = missionHash(mission);
  // A resumed run keeps the budget it started with, with or without a queue now; a new one asks the queue
  // (a deferred one does not exist yet: the mission's budget holds). A run started without one stays without one.
  const handoffPlan =
    resume !== undefined
      ? resume.handoffPlan
      : options.handoff === undefined || isDeferred(options.handoff)
        ? undefined
        : await planHandoff(options.handoff, setsMaxAttempts(mission) ? mission.budgets.maxAttempts : undefined);
  const underReview = options.handoff !== undefined && (resume === undefined || resume.underReview);
  const limits: BudgetLimits = {
    maxAttempts: handoffPlan?.maxAttempts ?? mission.budgets.maxAttempts,
    ...(mission.budgets.maxTokens === undefined ? {} : { maxTokens: mission.budgets.maxTokens }),
    ...(mission.budgets.maxWallClock === undefined ? {} : { maxWallClockMs: mission.budgets.maxWallClock }),
    ...(mission.budgets.maxCostUsd === undefined ? {} : { maxCostUsd: mission.budgets.maxCostUsd }),
  };
  if (resume !== undefined) assertSamePlan(mission, resume.checkNames, checks);
  // A resumed run steps over its recorded attempts with this run's step context: the same state, the same verdicts.
  const restored = resume?.restore(stepContext) ?? { state: initialState(), next: 'baseline' as const };
  const start = { state: { working: restored.state, inventories: resume?.inventories ?? {}, scores: [] }, next: restored.next };
  // A resumed run's clock goes on from the elapsed time it recorded; the snapshot counts.
  const startedAt = now() - restored.state.counters.elapsedMs;
  const sandbox = sandboxOf(mission);
  // The baseline: the workspace as it is now, read once into the run's snapshot; checks never see the live tree.
  const workspaceOptions =
    mission.workspaceDir === undefined
      ? undefined
      : {
          runId,
          workspace: options.snapshotFrom ?? mission.workspaceDir,
          ignore: mission.ignore,
          ...(options.scratchDir === undefined ? {} : { scratchDir: options.scratchDir }),
          ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
          ...(options.cacheMaxBytes === undefined ? {} : { cacheMaxBytes: options.cacheMaxBytes }),
        };
  const files =
    workspaceOptions === undefined
      ? undefined
      : resume?.manifestHash === undefined
        ? await startWorkspace(mission, workspaceOptions)
        : await RunWorkspace.resume({ ...workspaceOptions, manifestHash: resume.manifestHash });
  // An agent edits a copy of its own: a new run's is brought to the snapshot while the baseline's checks run.
  if (files !== undefined && resume === undefined && proposer.identity?.kind === 'agent') files.agentCopyAhead({});
  const snapshotMs = now() - startedAt - restored.state.counters.elapsedMs;
  const proposerWorkspace: ProposerWorkspace | undefined =
    files === undefined
      ? undefined
      : {
          baselineFiles: () => files.baselineFiles(),
          prepare: (candidateFiles) => files.agentCopy(candidateFiles),
          changes: (changeOptions) => files.agentChanges(changeOptions),
        };
  return {
    runId,
    mission,
    ledger,
    proposer,
    judge,
    approvals: options.approvals ?? [],
    runPlan,
    admitted,
    checks,
    shadowChecks: allChecks.filter((item) => item.shadow === true),
    guards,
    stepContext,
    missionHash: startHash,
    handoffPlan,
    underReview,
    limits,
    sandbox,
    files,
    baseline: new Baseline(files === undefined ? undefined : (file) => files.snapshot.text(file)),
    proposerWorkspace,
    startedAt,
    snapshotMs,
    start,
    resumedFrom: resume?.seq,
  };
}
