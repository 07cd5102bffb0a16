import { randomUUID } from 'node:crypto';
import { evaluateAcceptance } from '../core/acceptance.js';
import { makeBrief } from '../core/brief.js';
import { finding, type Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { StopReason, type Verification } from '../core/outcome.js';
import { runChecks } from '../checks/run-checks.js';
import type { AdaptivePriors } from '../guards/adaptive-priors.js';
import { budgets as budgetGuards } from '../guards/budget.js';
import { evaluatePolicy, policyLookback, type Guard, type StopVerdict } from '../guards/guard.js';
import { buildGuard, type GuardSpecInput } from '../guards/spec.js';
import type { Decision } from '../judge/judge.js';
import { routingJudge } from '../judge/routing-judge.js';
import { validateDecision } from '../judge/validate-decision.js';
import type { Ledger, RunRecord } from '../ledger/ledger.js';
import type { RunRecordBody } from '../ledger/run-records.js';
import { defineMission, missionHash, type Mission } from '../mission/mission.js';
import type { MissionInput } from '../mission/schema.js';
import { planHash } from '../state/signature.js';
import { step as stepState, type StepContext } from '../state/step.js';
import { initialState, type WorkingState } from '../state/working-state.js';
import { stepCandidate, type StepSlice } from './step-candidate.js';
import { isCheckSpec, stepChecks, type StepCheckInput } from './step-checks.js';

/** Why redline stopped an AI SDK loop (or, after `finish`, why the loop ended), and what the run is worth. */
export interface StopWhenVerdict extends StopVerdict {
  readonly verification: Verification;
  /** The step (1-based) the verdict was given on. */
  readonly step: number;
  /** The run id in the ledger (also without a ledger: the id the run would have had). */
  readonly runId: string;
}

/** An AI SDK stop condition (`stopWhen`) with redline's verdict. */
export interface RedlineStopCondition<STEP extends StepSlice> {
  (options: { readonly steps: readonly STEP[] }): Promise<boolean>;
  /** The verdict once redline stopped the loop (or `finish` sealed it); undefined while the loop may go on. */
  readonly verdict: StopWhenVerdict | undefined;
  /**
   * Evaluates the steps the AI SDK did not ask about (the last one, when the model answered without a tool
   * call) and seals the run: a passing demand check still completes it; otherwise the model's own stop is
   * `failed_with_evidence`, reason `loop_ended`, unverified. Pass `generateText`'s result; idempotent.
   */
  finish(result: { readonly steps: readonly STEP[] }): Promise<StopWhenVerdict>;
}

export interface RedlineStopWhenOptions<STEP extends StepSlice> {
  /** The stop policy after the budgets: guards as a mission file writes them (`{ repeatedOutput: {…} }`) or `Guard`s. */
  readonly guards: readonly (GuardSpecInput | Guard)[];
  /** Budgets as a mission file writes them; an attempt is a step. @default { maxAttempts: 20 } */
  readonly budgets?: NonNullable<MissionInput['budgets']>;
  /** USD per million tokens: the cost each step's usage charges. A `maxCostUsd` budget needs it. */
  readonly price?: { readonly input: number; readonly output: number };
  /** The score of a step in [0, 1] (for score rules and the noise-aware rule); undefined: no score. */
  readonly scoreFrom?: (step: STEP) => number | undefined | PromiseLike<number | undefined>;
  /** The red lines run on every step: a required demand check that passes stops the loop, complete and verified. */
  readonly checks?: readonly StepCheckInput<STEP>[];
  /** Where program checks run: the directory the loop's tools work on. @default process.cwd() */
  readonly cwd?: string;
  /** Records every step and the stop as a sealed run. */
  readonly ledger?: Ledger;
  /** What the run records of its mission. @default { id: 'ai-sdk', goal: 'AI SDK tool loop' } */
  readonly mission?: { readonly id?: string; readonly goal?: string; readonly taskType?: string; readonly progressWindow?: number };
  /** What an `adaptive` guard learned (e.g. `AdaptivePriors.from(…)`); required when one is named. */
  readonly priors?: AdaptivePriors;
  readonly _internal?: { readonly now?: () => number; readonly generateId?: () => string };
}

const SCORE_CHECK = 'scoreFrom';
const isGuard = (item: GuardSpecInput | Guard): item is Guard => typeof (item as Guard).evaluate === 'function';

/**
 * An AI SDK `stopWhen` condition built from redline's guard stack and red lines (SPEC §9). Each step of
 * the tool loop is an attempt: its tool calls (tool name + canonical input) are its candidate, its usage
 * is charged to the budgets, the checks run on it, and the routing judge decides on the evidence and the
 * first guard verdict — so only a passing demand check, a score rule with acceptance, a budget or a
 * thrash guard stops the loop; what the model says never does. With a `ledger` the run is recorded and
 * sealed as a mission run is (`redline replay`, `report stop-quality` and `ledger verify` read it).
 *
 * @example
 * const stop = redlineStopWhen({ guards: [{ repeatedOutput: { window: 3, repeats: 2 } }], budgets: { maxAttempts: 12 },
 *   checks: [{ kind: 'test-runner', name: 'tests', command: 'node --test', format: 'node-spec' }], cwd: repo });
 * const result = await generateText({ model, tools, toolChoice: 'required', stopWhen: stop, prompt });
 * const verdict = await stop.finish(result); // { guard, reason: 'demand_passed', verification: 'verified', … }
 */
export function redlineStopWhen<STEP extends StepSlice>(options: RedlineStopWhenOptions<STEP>): RedlineStopCondition<STEP> {
  const { guards: guardInputs, price, scoreFrom, checks: checkInputs = [], cwd = process.cwd(), ledger } = options;
  if (!Array.isArray(guardInputs)) throw new TypeError(`Expected \`guards\` to be an array, got ${typeof guardInputs}`);
  if (!Array.isArray(checkInputs)) throw new TypeError(`Expected \`checks\` to be an array, got ${typeof checkInputs}`);
  const now = options._internal?.now ?? Date.now;
  const specs = guardInputs.filter((item) => !isGuard(item));
  const mission: Mission = defineMission(
    {
      id: options.mission?.id ?? 'ai-sdk',
      goal: options.mission?.goal ?? 'AI SDK tool loop',
      ...(options.mission?.taskType === undefined ? {} : { taskType: options.mission.taskType }),
      ...(options.mission?.progressWindow === undefined ? {} : { progressWindow: options.mission.progressWindow }),
      budgets: { maxAttempts: 20, ...options.budgets },
      checks: checkInputs.filter(isCheckSpec),
      stopPolicy: { guards: specs },
    },
    { source: 'redlineStopWhen' },
  );
  if (mission.budgets.maxCostUsd !== undefined && price === undefined)
    throw new TypeError('Expected `price` (USD per million tokens) with a `maxCostUsd` budget, got none: the cost could not be measured');
  let spec = 0;
  const policy = guardInputs.map((item) =>
    isGuard(item)
      ? item
      : buildGuard((mission.stopPolicy.guards ?? [])[spec++] as never, options.priors === undefined ? {} : { priors: options.priors }),
  );
  const guards = [...budgetGuards(), ...policy];
  const checks = stepChecks(checkInputs, mission.checks);
  const scoreInfo = { name: SCORE_CHECK, stage: 'fast', tier: 'semantic', required: false } as const;
  const plan = [...checks, ...(scoreFrom === undefined ? [] : [scoreInfo])];
  const context: StepContext = {
    required: new Set(plan.filter((check) => check.required).map((check) => check.name)),
    promotion: new Set(plan.filter((check) => check.required && check.stage === 'promotion').map((check) => check.name)),
    plan: planHash(plan),
    lookback: Math.max(policyLookback(guards), mission.progressWindow),
  };
  const limits = {
    maxAttempts: mission.budgets.maxAttempts,
    ...(mission.budgets.maxTokens === undefined ? {} : { maxTokens: mission.budgets.maxTokens }),
    ...(mission.budgets.maxWallClock === undefined ? {} : { maxWallClockMs: mission.budgets.maxWallClock }),
    ...(mission.budgets.maxCostUsd === undefined ? {} : { maxCostUsd: mission.budgets.maxCostUsd }),
  };
  const judge = routingJudge();
  const runId = options._internal?.generateId?.() ?? randomUUID();
  const startedAt = now();
  let state: WorkingState = initialState();
  let verdict: StopWhenVerdict | undefined;
  let seq = 0;
  /** Evaluations one after another, even if the caller does not wait: records are chained in order. */
  let queue: Promise<unknown> = Promise.resolve();

  const append = async (body: RunRecordBody): Promise<void> => {
    await ledger?.append({ runId, seq, at: now(), ...body } as RunRecord);
    seq += 1;
  };
  /** Appends a record, after `run.started` when it is the run's first. */
  const record = async (body: RunRecordBody): Promise<void> => {
    if (ledger === undefined) return;
    if (seq === 0)
      await append({
        type: 'run.started',
        data: {
          mission,
          missionHash: missionHash(mission),
          proposer: 'ai-sdk',
          judge: judge.name,
          guards: guards.map((guard) => guard.name),
          checks: plan.map(({ name, stage, tier, required }) => ({ name, stage, tier, required })),
          lookback: context.lookback,
        },
      });
    await append(body);
  };

  const scoreFinding = async (step: STEP): Promise<Finding[]> => {
    if (scoreFrom === undefined) return [];
    const score = await scoreFrom(step);
    if (score === undefined) return [];
    if (typeof score !== 'number' || !(score >= 0 && score <= 1))
      return [finding(scoreInfo, 'error', ['score.out_of_range'], `Expected a score in [0, 1], got ${String(score)}`)];
    return [finding(scoreInfo, 'pass', [], `score ${score}`, { score })];
  };

  /** Seals the run with a verdict (the stop, or the loop's own end). */
  const seal = async (ending: StopVerdict, verification: Verification): Promise<StopWhenVerdict> => {
    const { outcome, reason, detail, guard } = ending;
    const counters = { ...state.counters, elapsedMs: now() - startedAt };
    const brief =
      outcome === 'blocked' || verification === 'unverified'
        ? makeBrief({
            runId,
            task: mission.goal,
            priority: mission.priority,
            candidate: state.candidate,
            cutoffReason: `${reason}: ${detail}`,
            attempts: state.attempt,
            verification,
            findings: state.findings,
          })
        : undefined;
    await record({
      type: 'run.sealed',
      data: {
        outcome,
        verification,
        stopReason: reason,
        detail,
        guard,
        attempts: state.attempt,
        candidateHash: state.candidate.hash,
        counters,
        ...(brief === undefined ? {} : { brief }),
      },
    });
    verdict = { ...ending, verification, step: state.attempt, runId };
    return verdict;
  };

  /** One step as one attempt: checked, stepped, judged and recorded; sealed when the decision ends the run. */
  const attempt = async (step: STEP): Promise<void> => {
    const number = state.attempt + 1;
    const candidate = stepCandidate(step);
    const stepChecksNow: Check[] = checks.map((check) => check.forStep(step));
    const findings = [
      ...(await runChecks(stepChecksNow, {
        dir: cwd,
        candidate,
        goal: mission.goal,
        attempt: number,
        signal: new AbortController().signal,
      })),
      ...(await scoreFinding(step)),
    ];
    const { inputTokens, outputTokens } = step.usage;
    const usage = {
      ...(inputTokens === undefined ? {} : { inputTokens }),
      ...(outputTokens === undefined ? {} : { outputTokens }),
      ...(price === undefined ? {} : { costUsd: ((inputTokens ?? 0) * price.input + (outputTokens ?? 0) * price.output) / 1_000_000 }),
    };
    const stepped = stepState(state, { candidate, findings, usage, elapsedMs: now() - startedAt }, context);
    state = stepped.state;
    await record({
      type: 'attempt',
      data: { attempt: number, candidate, usage, findings, summary: stepped.summary, counters: state.counters },
    });
    const stop = evaluatePolicy(guards, {
      recent: state.recent,
      counters: state.counters,
      budgets: limits,
      progressWindow: mission.progressWindow,
      taskType: mission.taskType,
    });
    const acceptance = evaluateAcceptance({
      checks: stepChecksNow,
      findings,
      approvalsRequired: [],
      approvalsGiven: [],
      missionUnchanged: () => true,
      recordsAgree: true,
    });
    const evidence = { mission, attempt: number, candidate, findings, acceptance, ...(stop === undefined ? {} : { verdict: stop }) };
    // The routing table's decision is validated like any judge's before it applies.
    const checked = validateDecision(await judge.decide(evidence, { signal: new AbortController().signal, runId }), evidence);
    const decision: Decision =
      'decision' in checked
        ? checked.decision
        : { transition: 'fail', reason: StopReason.invalidDecision, detail: checked.rejection.message };
    await record({
      type: 'decision',
      data: {
        attempt: number,
        ...(stop === undefined ? {} : { verdict: stop }),
        decision,
        ...('rejection' in checked ? { rejection: checked.rejection } : {}),
        acceptance,
        state: { counters: state.counters, frontier: state.frontier, recentAttempts: state.recent.map((summary) => summary.attempt) },
      },
    });
    if (decision.transition === 'retry') return;
    const detail = decision.detail ?? decision.reason;
    if (decision.transition === 'accept')
      await seal(
        { guard: stop?.outcome === 'complete' ? stop.guard : 'demand', reason: decision.reason, detail, outcome: 'complete' },
        acceptance.hasDemand ? 'verified' : 'sampled',
      );
    else
      await seal(
        stop ?? {
          guard: judge.name,
          reason: decision.reason,
          detail,
          outcome: decision.transition === 'block' ? 'blocked' : 'failed_with_evidence',
        },
        'unverified',
      );
  };

  /** Steps the loop made that were not evaluated yet, one attempt each, until a stop. */
  const catchUp = (steps: readonly STEP[]): Promise<void> => {
    const next = queue.then(async () => {
      if (steps.length < state.attempt)
        throw new TypeError(
          `Expected the steps of one loop (a new redlineStopWhen per call), got ${steps.length} steps after ${state.attempt}`,
        );
      for (const step of steps.slice(state.attempt)) {
        if (verdict !== undefined) return;
        await attempt(step);
      }
    });
    queue = next.catch(() => undefined);
    return next;
  };

  const condition = async ({ steps }: { readonly steps: readonly STEP[] }): Promise<boolean> => {
    await catchUp(steps);
    return verdict !== undefined;
  };
  const finish = async ({ steps }: { readonly steps: readonly STEP[] }): Promise<StopWhenVerdict> => {
    await catchUp(steps);
    const ended = queue.then(async () => {
      if (verdict !== undefined) return verdict;
      const detail = `the loop ended after ${state.attempt} steps without a stop verdict (the model answered without a tool call, or another condition stopped it)`;
      return seal({ guard: 'ai-sdk', reason: 'loop_ended', detail, outcome: 'failed_with_evidence' }, 'unverified');
    });
    queue = ended.catch(() => undefined);
    return ended;
  };
  return Object.defineProperties(condition, {
    verdict: { get: () => verdict, enumerable: true },
    finish: { value: finish, enumerable: true },
  }) as RedlineStopCondition<STEP>;
}
