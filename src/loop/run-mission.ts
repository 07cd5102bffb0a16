import { randomUUID } from 'node:crypto';
import type { Check } from '../core/check.js';
import { buildChecks } from '../build/build-checks.js';
import { SCOPE_CHECK } from '../checks/scope-check.js';
import { LedgerError } from '../errors/ledger-error.js';
import { MissionError } from '../errors/mission-error.js';
import { runtimeGuards } from '../guards/no-change.js';
import { evaluatePolicy, policyLookback, type BudgetLimits, type StopVerdict } from '../guards/guard.js';
import { buildPolicy, defaultGuards, needsPriors } from '../guards/spec.js';
import { planHandoff, type HandoffPlan } from '../handoff/handoff.js';
import { buildJudge } from '../build/build-judge.js';
import type { RunRecord } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory/memory-ledger.js';
import type { RunRecordBody } from '../ledger/run-records.js';
import { sealSignature } from '../ledger/seal-signature.js';
import { missionHash, setsMaxAttempts } from '../mission/mission.js';
import { buildProposer } from '../build/build-proposer.js';
import { PROPOSER_PROTOCOL, type ProposerWorkspace } from '../proposers/proposer.js';
import type { RunMissionOptions, RunResult } from './run-options.js';
import { Aborted } from './abort.js';
import { askJudge } from './ask-judge.js';
import { evaluateAcceptance, verificationOf } from '../core/acceptance.js';
import { Baseline, EMPTY_CANDIDATE } from '../core/candidate.js';
import { StopReason } from '../core/outcome.js';
import { proposerNoun, type ProposerAccount } from '../core/proposer-account.js';
import type { ShadowResult } from '../core/shadow-verdict.js';
import { checkCandidate, type Checked } from './check-candidate.js';
import { endingOf, refines, runtimeErrorEnding, stoppedEnding, type Ending, type RecordedDecision } from './ending.js';
import { checksBaseline, environmentVerdict } from './environment.js';
import { learnFrom, loadPriors, recordedScores } from './learn.js';
import { ownerInfo } from '../ledger/owner.js';
import { admitPlan } from './plan-admission.js';
import { propose, proposerErrorFindings, spent } from './propose.js';
import { noChangeFindings } from '../proposers/no-change.js';
import { runPlanOf } from './run-plan.js';
import { assertRunnable, checkPlan, sandboxOf, startWorkspace } from './run-setup.js';
import { sealRun } from './seal.js';
import { runShadow } from './shadow.js';
import { planHash } from '../state/signature.js';
import { step, type StepContext } from '../state/step.js';
import { unreachableVerdict } from './unreachable.js';
import { workspaceAtSeal } from './workspace-at-seal.js';
import { initialState, frontierOf, type WorkingState } from '../state/working-state.js';
import { linksOutside } from '../workspace/links-outside.js';
import { baselineChannel, candidateChannel, type BaselineInventories } from './inventories.js';
import type { InventoryChannel } from '../core/test-inventory.js';
import { holdRun } from '../workspace/held-runs.js';
import { RunWorkspace } from '../workspace/run-workspace.js';
import { setLongTimeout } from '../process/long-timeout.js';
import { startTrace } from '../telemetry/start-trace.js';
import type { TraceSpan } from '../telemetry/trace-span.js';
import { reasonCodeCount } from '../checks/check-span.js';
import { judgeSpan, proposalSpan, runSpan, traceDecision, traceSeal, usageAttributes } from './run-trace.js';

export type { RunMissionOptions, RunResult } from './run-options.js';

/** What the last stored record of a run leaves to do. */
export type ResumeStep = 'baseline' | 'decide' | 'attempt' | { readonly apply: RecordedDecision };

/** Where a recovered run picks up (see `resume.ts`). */
export interface ResumePoint {
  readonly runId: string;
  /** Records already stored. */
  readonly seq: number;
  /** Checks the run started with, by name, in order: a resumed run must run the same plan. */
  readonly checkNames: readonly string[];
  /** The review queue's plan the run started with, if it had one. */
  readonly handoffPlan?: HandoffPlan;
  /** The manifest hash of the workspace snapshot the run started with (runs recorded before snapshots: none). */
  readonly manifestHash?: string;
  /** The test inventories its baseline record holds (none before the baseline was checked). */
  readonly inventories?: BaselineInventories;
  /** The working state and the step left to do, rebuilt from the run's records by stepping over its attempts. */
  readonly restore: (context: StepContext) => { readonly state: WorkingState; readonly next: ResumeStep };
}

/**
 * Runs one mission: Propose → Check → Decide → (Refine | Seal), until a transition seals the run.
 * The user's workspace is never modified; every event goes to the ledger.
 * @throws {MissionError} before anything is recorded, when the mission cannot run as given.
 * @throws {LinkError} before anything is recorded, when `resolves` names a run this one cannot resolve.
 * @throws {SamePlanError} before anything is recorded, when the same plan thrashed on this mission before.
 */
export function runMission(options: RunMissionOptions): Promise<RunResult> {
  return executeRun(options);
}

/**
 * The loop, for a new run or one resumed from its records, in the run's span (when tracing is on): the span
 * ends however the run does, failed when it throws.
 */
export async function executeRun(options: RunMissionOptions, resume?: ResumePoint): Promise<RunResult> {
  const runId = resume?.runId ?? options.runId ?? options._internal?.generateId?.() ?? randomUUID();
  // Held while it runs: recovery in this process (many runs at once) tells it from a crashed run.
  const release = holdRun(runId);
  const span = await startTrace({ tracer: options.tracer, ...runSpan(options.mission.id, resume?.seq) });
  span.set({ 'redline.run.id': runId, 'gen_ai.conversation.id': runId });
  try {
    return await loop(options, resume, span, runId);
  } catch (error) {
    span.failWith(error);
    throw error;
  } finally {
    span.end();
    release();
  }
}

async function loop(options: RunMissionOptions, resume: ResumePoint | undefined, span: TraceSpan, runId: string): Promise<RunResult> {
  const { mission, ledger = new MemoryLedger(), approvals = [], onRecord } = options;
  const now = options._internal?.now ?? Date.now;
  const limited = options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter };
  const proposer = options.proposer ?? (await buildProposer(mission, limited));
  const judge =
    options.judge ??
    (await buildJudge(mission, { ...limited, ...(options.handoff === undefined ? {} : { queue: options.handoff.queue }) }));
  await assertRunnable(mission, proposer);
  const runPlan = runPlanOf(mission, proposer);
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
  const shadowChecks = allChecks.filter((item) => item.shadow === true);
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
  // A resumed run keeps the budget it started with, with or without a queue now; a new one asks the queue.
  // A run started without one stays without one.
  const handoffPlan =
    resume !== undefined
      ? resume.handoffPlan
      : options.handoff === undefined
        ? undefined
        : await planHandoff(options.handoff, setsMaxAttempts(mission) ? mission.budgets.maxAttempts : undefined);
  const limits: BudgetLimits = {
    maxAttempts: handoffPlan?.maxAttempts ?? mission.budgets.maxAttempts,
    ...(mission.budgets.maxTokens === undefined ? {} : { maxTokens: mission.budgets.maxTokens }),
    ...(mission.budgets.maxWallClock === undefined ? {} : { maxWallClockMs: mission.budgets.maxWallClock }),
    ...(mission.budgets.maxCostUsd === undefined ? {} : { maxCostUsd: mission.budgets.maxCostUsd }),
  };
  if (resume !== undefined && resume.checkNames.join('\n') !== checks.map((check) => check.name).join('\n')) {
    throw new MissionError({
      source: mission.id,
      issues: [
        {
          path: 'checks',
          expected: `the checks the run started with (${resume.checkNames.join(', ')})`,
          got: checks.map((check) => check.name).join(', '),
          message: 'a resumed run must run the same check plan',
        },
      ],
    });
  }
  // A resumed run steps over its recorded attempts with this run's step context: the same state, the same verdicts.
  const restored = resume?.restore(stepContext);
  /** The working state after the last step. */
  let state: WorkingState = restored?.state ?? initialState();
  /** The attempt under way (the last one made, between attempts). */
  let attempt = state.attempt;
  /** The candidate under way: the proposal being checked, else the latest candidate. */
  let candidate = state.candidate;
  // A resumed run's clock goes on from the elapsed time it recorded; the snapshot counts.
  const startedAt = now() - state.counters.elapsedMs;
  const sandbox = sandboxOf(mission);
  // The baseline: the workspace as it is now, read once into the run's snapshot; checks never see the live tree.
  const workspaceOptions =
    mission.workspaceDir === undefined
      ? undefined
      : {
          runId,
          workspace: mission.workspaceDir,
          ignore: mission.ignore,
          ...(options.scratchDir === undefined ? {} : { scratchDir: options.scratchDir }),
        };
  const files =
    workspaceOptions === undefined
      ? undefined
      : resume === undefined || resume.manifestHash === undefined
        ? await startWorkspace(mission, workspaceOptions)
        : await RunWorkspace.resume({ ...workspaceOptions, manifestHash: resume.manifestHash });
  const snapshotMs = now() - startedAt - state.counters.elapsedMs;
  const baseline = new Baseline(files === undefined ? undefined : (file) => files.snapshot.text(file));
  const proposerWorkspace: ProposerWorkspace | undefined =
    files === undefined
      ? undefined
      : {
          baselineFiles: () => files.baselineFiles(),
          prepare: (candidateFiles) => files.agentCopy(candidateFiles),
          changes: (changeOptions) => files.agentChanges(changeOptions),
        };
  let sealed = false;

  // The wall-clock budget is enforced while a proposer, check or judge runs, not only between attempts.
  const wallClock = new AbortController();
  const timer =
    limits.maxWallClockMs === undefined
      ? undefined
      : setLongTimeout({
          delayMs: limits.maxWallClockMs - (now() - startedAt),
          onTimeout: () => wallClock.abort(StopReason.budgetWallClock),
        });
  const signal = options.signal === undefined ? wallClock.signal : AbortSignal.any([wallClock.signal, options.signal]);

  let seq = resume?.seq ?? 0;
  /** The hash of the newest record this process appended: every run appends one (started or resumed) before it can seal. */
  let lastHash: string | undefined;
  const record = async (body: RunRecordBody): Promise<void> => {
    const unsigned: RunRecord = { runId, seq, at: now(), ...body };
    // The seal is signed over the hash of the record before it, which chains every record of the run.
    const entry: RunRecord =
      unsigned.type === 'run.sealed' && options.signer !== undefined
        ? {
            ...unsigned,
            data: { ...unsigned.data, signature: sealSignature({ signer: options.signer, prevHash: lastHash as string, seal: unsigned }) },
          }
        : unsigned;
    lastHash = (await ledger.append(entry)).hash;
    seq += 1;
    onRecord?.(entry);
  };

  /** The observed score of each attempt this process ran, by attempt index, for {@link learnFrom}. */
  const observedScores: (number | undefined)[] = [];
  /** What each test-runner check reported on the baseline: every candidate's report must still hold it (a resumed run's is recorded). */
  let inventories: BaselineInventories = resume?.inventories ?? {};
  const checkContext = (number: number, inventory: InventoryChannel = candidateChannel(inventories)) => ({
    goal: mission.goal,
    attempt: number,
    signal,
    inventory,
    ...(sandbox === undefined ? {} : { sandbox: sandbox.checks }),
  });

  /**
   * The shadow checks on the candidate the loop stopped on (the baseline when it made none), in the check
   * copy. Only the caller's signal stops them: a run cut off by its wall-clock budget still gets its verdict.
   */
  const shadowAtSeal = (): Promise<ShadowResult> =>
    runShadow({
      checks: shadowChecks,
      now,
      context: {
        candidate,
        goal: mission.goal,
        attempt,
        signal: options.signal ?? new AbortController().signal,
        ...(sandbox === undefined ? {} : { sandbox: sandbox.checks }),
      },
      ...(files === undefined
        ? {}
        : {
            copy: () => files.checkCopy(candidate.files),
            scope: checks.find((item) => item.name === SCOPE_CHECK) as Check,
          }),
    });

  /** Seals the run where it stands: every ending — the loop's, a stop, a runtime error — goes through here. */
  const seal = async (ending: Ending): Promise<RunResult> => {
    timer?.clear();
    const verification = verificationOf(ending.outcome, checks, state.findings);
    const counters = { ...state.counters, elapsedMs: now() - startedAt };
    let changed: readonly string[] = [];
    const { data, brief } = await sealRun({
      runId,
      ending,
      verification,
      position: {
        attempt,
        candidate,
        findings: state.findings,
        ...(state.account === undefined ? {} : { account: state.account }),
        counters,
      },
      mission: { goal: mission.goal, taskType: mission.taskType, priority: mission.priority, stripPatterns: mission.brief?.stripPatterns },
      baseline: files === undefined ? undefined : (file) => files.baselineFile(file),
      handoff: options.handoff === undefined || handoffPlan === undefined ? undefined : { handoff: options.handoff, plan: handoffPlan },
      atSeal: async () => {
        const workspace = await workspaceAtSeal(files, candidate.footprint);
        changed = workspace.changed;
        const shadow = shadowChecks.length === 0 ? undefined : await shadowAtSeal();
        return { ...workspace.data, ...(shadow === undefined ? {} : { shadow }) };
      },
      append: async (sealData) => {
        await record({ type: 'run.sealed', data: sealData });
        sealed = true;
      },
    });
    traceSeal(span, { ending, verification, attempts: attempt, chainHead: lastHash, findings: state.findings, counters });
    // A resumed run's earlier attempts ran in another process: their scores are in the records.
    await learnFrom(ledger, mission.taskType, resume === undefined ? observedScores : recordedScores(await ledger.records(runId)));
    const { outcome, stopReason, detail, guard } = ending;
    return {
      runId,
      mission: mission.id,
      outcome,
      verification,
      stopReason,
      detail,
      ...(guard === undefined ? {} : { guard }),
      attempts: attempt,
      candidate,
      findings: state.findings,
      counters,
      ...(brief === undefined ? {} : { brief }),
      ...(changed.length === 0 ? {} : { workspaceChanged: changed }),
      ...(data.shadow === undefined ? {} : { shadow: data.shadow }),
    };
  };

  /** Asks the judge on the evidence (with the stop verdict), in a child span of `trace`, and records its validated decision. */
  const decide = async (verdict: StopVerdict | undefined, trace: TraceSpan = span): Promise<RecordedDecision> => {
    const head = await ledger.head(runId);
    const acceptance = evaluateAcceptance({
      checks,
      findings: state.findings,
      approvalsRequired: mission.approvals,
      approvalsGiven: approvals,
      missionUnchanged: () => missionHash(mission) === startHash,
      recordsAgree: head.count === seq && !head.sealed,
    });
    const evidence = {
      mission,
      attempt: state.attempt,
      candidate: state.candidate,
      findings: state.findings,
      acceptance,
      ...(verdict === undefined ? {} : { verdict }),
    };
    const decided = await trace.child(judgeSpan(judge), async (judgeTrace) => {
      const answer = await askJudge({ judge, evidence, signal, runId });
      if (judgeTrace.recording) traceDecision(judgeTrace, answer);
      return answer;
    });
    await record({
      type: 'decision',
      data: {
        attempt: state.attempt,
        ...decided,
        acceptance,
        state: { counters: state.counters, frontier: state.frontier, recentAttempts: state.recent.map((summary) => summary.attempt) },
      },
    });
    return decided;
  };

  /** How a decision that does not refine ends the run. */
  const ended = (decided: RecordedDecision): Ending =>
    endingOf(decided, { onRejectedDecision: mission.stopPolicy.onRejectedDecision, judge: judge.name });

  const policyVerdict = (): StopVerdict | undefined =>
    evaluatePolicy(guards, {
      recent: state.recent,
      counters: state.counters,
      budgets: limits,
      progressWindow: mission.progressWindow,
      taskType: mission.taskType,
    });

  /**
   * Before any proposal: a mission no candidate in scope can satisfy ends at once (decided from the mission
   * and the snapshot alone, so a resumed run decides the same); with a required demand red line the baseline
   * is checked and judged — a red line that already holds needs no candidate (`noop`), a required check that
   * cannot run on it (environment) makes none help. A resumed run instead does the step its records left to
   * do. Returns the run's ending, or `propose` for the loop.
   */
  const open = async (next: ResumeStep): Promise<Ending | 'propose'> => {
    const judged = (decided: RecordedDecision): Ending | 'propose' => (refines(decided) ? 'propose' : ended(decided));
    if (typeof next === 'object') return ended(next.apply);
    if (next === 'attempt') return 'propose';
    if (next === 'decide')
      return judged(await decide(state.attempt === 0 ? environmentVerdict(checks, state.findings, mission.scope) : policyVerdict()));
    const unreachable =
      files === undefined ? undefined : unreachableVerdict({ mission, inBaseline: (file) => files.snapshot.manifest.has(file) });
    if (unreachable !== undefined)
      return { outcome: unreachable.outcome, stopReason: unreachable.reason, detail: unreachable.detail, guard: unreachable.guard };
    if (!checksBaseline(mission, checks)) return 'propose';
    return span.child({ name: 'redline.baseline', attributes: { 'redline.attempt.number': 0 } }, async (trace) => {
      const reported = baselineChannel();
      const checked = await checkCandidate({
        checks,
        candidate: EMPTY_CANDIDATE,
        context: checkContext(0, reported.channel),
        files,
        now,
        trace,
      });
      inventories = reported.recorded();
      state = {
        ...state,
        findings: checked.findings,
        frontier: frontierOf(EMPTY_CANDIDATE, checked.findings, stepContext.required, stepContext.promotion, undefined),
      };
      trace.set({ 'redline.reason_codes.count': reasonCodeCount(state.findings) });
      await record({
        type: 'baseline',
        data: {
          findings: state.findings,
          frontier: state.frontier,
          ...(checked.isolation === undefined ? {} : { isolation: checked.isolation }),
          ...(Object.keys(inventories).length === 0 ? {} : { inventories }),
        },
      });
      return judged(await decide(environmentVerdict(checks, state.findings, mission.scope), trace));
    });
  };

  /**
   * One attempt, in the attempt's span `trace`: the proposal, its candidate checked in the check copy — or the
   * proposer's error, or, when the proposal changed nothing, no check at all (the latest findings still hold) —
   * with the proposer's account.
   */
  const attemptOnce = async (
    trace: TraceSpan,
  ): Promise<Checked & { usage: ReturnType<typeof spent>; account: ProposerAccount | undefined }> => {
    const proposed = await trace.child(proposalSpan(proposer), async (proposalTrace) => {
      const answer = await proposeNext();
      proposalTrace.set(usageAttributes(spent(answer)));
      if ('error' in answer) proposalTrace.fail({ type: answer.error.code, message: answer.error.message });
      return answer;
    });
    const { account } = proposed;
    const usage = spent(proposed);
    if ('error' in proposed) return { findings: proposerErrorFindings(proposed.error, checks), usage, account };
    if ('unchanged' in proposed)
      return { findings: noChangeFindings({ latest: state.findings, account, kind: proposer.identity?.kind }), usage, account };
    candidate = proposed.candidate;
    return { ...(await checkCandidate({ checks, candidate, context: checkContext(attempt), files, now, trace })), usage, account };
  };

  /** Asks the proposer for the next attempt's candidate. */
  const proposeNext = () =>
    propose({
      proposer,
      request: {
        protocol: PROPOSER_PROTOCOL,
        mission,
        attempt,
        state: {
          candidate: attempt === 1 ? null : state.candidate,
          findings: state.findings,
          budgetsLeft: {
            attempts: limits.maxAttempts - attempt + 1,
            ...(limits.maxTokens === undefined
              ? {}
              : { tokens: limits.maxTokens - state.counters.inputTokens - state.counters.outputTokens }),
            ...(limits.maxWallClockMs === undefined ? {} : { wallClockMs: limits.maxWallClockMs - (now() - startedAt) }),
            ...(limits.maxCostUsd === undefined ? {} : { costUsd: limits.maxCostUsd - state.counters.costUsd }),
          },
          completedChecks: state.frontier.completed,
          recentSignatures: state.signatures,
        },
      },
      options: {
        signal,
        ...(proposerWorkspace === undefined ? {} : { workspace: proposerWorkspace }),
        ...(sandbox === undefined ? {} : { sandbox: sandbox.proposer }),
      },
      latest: state.candidate,
      baseline,
      pathProblems: (proposedFiles) => files?.candidateProblems(proposedFiles) ?? [],
    });

  /** The refinement loop: propose, check, step the working state, decide — until a decision ends the run. */
  const refine = async (): Promise<Ending> => {
    let decided: RecordedDecision;
    do {
      attempt = state.attempt + 1;
      // Between steps: a run stopped while it recorded or decided starts no proposer.
      if (signal.aborted) throw new Aborted(signal.reason);
      decided = await span.child({ name: 'redline.attempt', attributes: { 'redline.attempt.number': attempt } }, async (trace) => {
        const { findings, usage, isolation, account } = await attemptOnce(trace);
        const stepped = step(state, { candidate, findings, usage, account, elapsedMs: now() - startedAt }, stepContext);
        state = stepped.state;
        observedScores[attempt - 1] = stepped.summary.score;
        if (trace.recording)
          trace.set({
            'redline.attempt.score': stepped.summary.score,
            'redline.reason_codes.count': reasonCodeCount(findings),
            ...usageAttributes(usage),
          });
        await record({
          type: 'attempt',
          data: {
            attempt,
            candidate,
            ...(Object.keys(usage).length === 0 ? {} : { usage }),
            findings,
            summary: stepped.summary,
            counters: state.counters,
            frontier: state.frontier,
            ...(isolation === undefined ? {} : { isolation }),
            ...(account === undefined ? {} : { account }),
          },
        });
        return decide(policyVerdict(), trace);
      });
    } while (
      // Refine while the judge chose `retry` and no binding stop verdict (budget, thrash, human gate) overrode
      // it: every other transition — accept, noop, block, fail, a refused decision — ends the run.
      refines(decided)
    );
    return ended(decided);
  };

  try {
    if (resume === undefined) {
      await record({
        type: 'run.started',
        data: {
          mission,
          missionHash: startHash,
          plan: runPlan,
          ...admitted,
          proposer: proposer.name,
          judge: judge.name,
          guards: guards.map((guard) => guard.name),
          checks: checks.map(({ name, stage, tier, required: isRequired }) => ({ name, stage, tier, required: isRequired })),
          approvals,
          lookback: stepContext.lookback,
          owner: ownerInfo(),
          ...(handoffPlan === undefined ? {} : { handoff: handoffPlan }),
          ...(files === undefined
            ? {}
            : {
                workspace: {
                  manifest: files.snapshot.hash,
                  entries: files.snapshot.manifest.size,
                  ignore: mission.ignore,
                  snapshotMs,
                  ...linksOutside(files.snapshot.manifest),
                },
              }),
          ...(sandbox === undefined ? {} : { sandbox: mission.sandbox }),
          ...(options.review === undefined ? {} : { review: options.review }),
        },
      });
    } else {
      const next = restored?.next ?? 'baseline';
      await record({
        type: 'run.resumed',
        data: { fromSeq: resume.seq, next: typeof next === 'string' ? next : 'apply', owner: ownerInfo() },
      });
    }
    files?.markRecorded();
    const opened = await open(restored?.next ?? 'baseline');
    return await seal(opened === 'propose' ? await refine() : opened);
  } catch (error) {
    if (error instanceof Aborted)
      return seal(stoppedEnding({ wallClockMs: wallClock.signal.aborted ? limits.maxWallClockMs : undefined, attempt }));
    // Whatever broke, the run is sealed with the evidence gathered so far; only a ledger that cannot be written rethrows.
    if (error instanceof LedgerError || seq === 0) throw error;
    return seal(runtimeErrorEnding({ error, attempt }));
  } finally {
    timer?.clear();
    // An unsealed run (the ledger failed) keeps its snapshot for recovery to resume from.
    if (sealed) await files?.dispose();
    else await files?.close();
  }
}
