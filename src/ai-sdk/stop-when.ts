import { randomUUID } from 'node:crypto';
import { verificationOf } from '../core/acceptance.js';
import { finding, type Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import type { Verification } from '../core/outcome.js';
import { redactCommands } from '../core/redact-command.js';
import { runChecks } from '../checks/run-checks.js';
import { evaluatePolicy, type StopVerdict } from '../guards/guard.js';
import { routingJudge } from '../judge/routing-judge.js';
import { MemoryLedger } from '../ledger/memory/memory-ledger.js';
import { ownerInfo } from '../ledger/owner.js';
import { pidNamespace } from '../process/pid-namespace.js';
import { attemptRecord } from '../run/attempt-record.js';
import { ended, judgeState } from '../run/judge-state.js';
import { refines, type Ending } from '../run/ending.js';
import { RunRecorder } from '../run/run-recorder.js';
import { runPlanHash } from '../run/run-plan.js';
import { sealRun } from '../run/seal.js';
import { missionHash } from '../mission/mission.js';
import { step as stepState } from '../state/step.js';
import { initialState, type WorkingState } from '../state/working-state.js';
import { NO_TRACE } from '../telemetry/trace-span.js';
import { stepCandidate, type StepSlice } from './step-candidate.js';
import { planStopWhen, SCORE_CHECK, type RedlineStopWhenOptions } from './stop-when-plan.js';

export type { RedlineStopWhenOptions } from './stop-when-plan.js';

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

/**
 * An AI SDK `stopWhen` condition built from redline's guard stack and red lines (docs/ai-sdk.md). Each step of
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
  const { scoreFrom, price, cwd = process.cwd() } = options;
  const { mission, guards, limits, checks, plan, context } = planStopWhen(options);
  const now = options._internal?.now ?? Date.now;
  const judge = routingJudge();
  // Without a ledger the run is recorded in memory only: the same records, decisions and seal, then dropped.
  const ledger = options.ledger ?? new MemoryLedger();
  const recorder = new RunRecorder({ ledger, runId: options._internal?.generateId?.() ?? randomUUID(), now });
  const { runId } = recorder;
  const startHash = missionHash(mission);
  const proposer = { kind: 'ai-sdk', name: 'ai-sdk' };
  const startedAt = now();
  let state: WorkingState = initialState();
  let verdict: StopWhenVerdict | undefined;
  /** The name a demand stop carries: the required demand checks that passed. */
  const redLine = `demand(${plan
    .filter((check) => check.required && check.tier === 'demand')
    .map((check) => check.name)
    .join(', ')})`;
  /** Aborts a step's checks and the judge when the wall-clock budget runs out (the budget guard then stops the loop). */
  const deadline = (): AbortSignal =>
    limits.maxWallClockMs === undefined
      ? new AbortController().signal
      : AbortSignal.timeout(Math.max(0, limits.maxWallClockMs - (now() - startedAt)));
  /** Evaluations one after another, even if the caller does not wait: records are chained in order. */
  let queue: Promise<unknown> = Promise.resolve();

  /** The run's first record, as a mission run's (the plan's proposer is the AI SDK loop), before its first step's. */
  const start = async (): Promise<void> => {
    if (recorder.seq > 0) return;
    await recorder.append({
      type: 'run.started',
      data: {
        mission: redactCommands(mission),
        missionHash: startHash,
        plan: { hash: runPlanHash({ missionHash: startHash, proposer }), proposer },
        proposer: proposer.name,
        judge: judge.name,
        guards: guards.map((guard) => guard.name),
        checks: plan.map(({ name, stage, tier, required }) => ({ name, stage, tier, required })),
        approvals: [],
        lookback: context.lookback,
        // Recovery leaves the run of a live process alone, and seals the run of a dead one `crashed`.
        owner: ownerInfo(),
        pidNamespace: await pidNamespace(),
      },
    });
  };

  const scoreFinding = async (step: STEP): Promise<Finding[]> => {
    if (scoreFrom === undefined) return [];
    let score: unknown;
    try {
      score = await scoreFrom(step);
    } catch (error) {
      return [finding(SCORE_CHECK, 'error', ['score.threw'], `scoreFrom threw: ${(error as Error)?.message ?? String(error)}`)];
    }
    if (score === undefined) return [];
    if (typeof score !== 'number' || !(score >= 0 && score <= 1))
      return [finding(SCORE_CHECK, 'error', ['score.out_of_range'], `Expected a score in [0, 1], got ${String(score)}`)];
    return [finding(SCORE_CHECK, 'pass', [], `score ${score}`, { score })];
  };

  /** Seals the run through the loop's seal path, with the verification the loop gives the outcome on these checks. */
  const seal = async (ending: Ending, sealChecks: readonly Check[]): Promise<StopWhenVerdict> => {
    await start();
    const verification = verificationOf(ending.outcome, sealChecks, state.findings);
    await sealRun({
      runId,
      ending,
      verification,
      position: {
        attempt: state.attempt,
        candidate: state.candidate,
        findings: state.findings,
        counters: { ...state.counters, elapsedMs: now() - startedAt },
      },
      mission: { goal: mission.goal, taskType: mission.taskType, priority: mission.priority, stripPatterns: mission.brief?.stripPatterns },
      append: (data) => recorder.seal(data),
    });
    const { outcome, stopReason: reason, detail } = ending;
    // A demand stop is named by its red line; a stop no guard gave, by the judge.
    const guard = ending.guard ?? (outcome === 'complete' ? redLine : judge.name);
    verdict = { guard, reason, detail, outcome, verification, step: state.attempt, runId };
    return verdict;
  };

  /** One step as one attempt: checked, stepped, recorded and judged as the loop does; sealed when the decision ends the run. */
  const attempt = async (step: STEP): Promise<void> => {
    const number = state.attempt + 1;
    const candidate = stepCandidate(step);
    const stepChecksNow: Check[] = checks.map((check) => check.forStep(step));
    const findings = [
      ...(await runChecks(stepChecksNow, { dir: cwd, candidate, goal: mission.goal, attempt: number, signal: deadline() })),
      ...(await scoreFinding(step)),
    ];
    const { inputTokens, outputTokens } = step.usage;
    const usage = {
      ...(inputTokens === undefined ? {} : { inputTokens }),
      ...(outputTokens === undefined ? {} : { outputTokens }),
      ...(price === undefined ? {} : { costUsd: ((inputTokens ?? 0) * price.input + (outputTokens ?? 0) * price.output) / 1_000_000 }),
    };
    const evidence = { candidate, findings, usage, elapsedMs: now() - startedAt };
    const stepped = stepState(state, evidence, context);
    state = stepped.state;
    await start();
    await recorder.append(attemptRecord({ evidence, stepped }));
    const stop = evaluatePolicy(guards, {
      recent: state.recent,
      counters: state.counters,
      budgets: limits,
      progressWindow: mission.progressWindow,
      taskType: mission.taskType,
    });
    const deciding = { mission, missionHash: startHash, judge, checks: stepChecksNow, approvals: [], ledger, recorder, signal: deadline() };
    const decided = await judgeState(deciding, state, stop, NO_TRACE);
    if (!refines(decided)) await seal(ended(deciding, decided), stepChecksNow);
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
      // A failed outcome is unverified whatever the checks.
      return seal({ outcome: 'failed_with_evidence', stopReason: 'loop_ended', detail, guard: 'ai-sdk' }, []);
    });
    queue = ended.catch(() => undefined);
    return ended;
  };
  return Object.defineProperties(condition, {
    verdict: { get: () => verdict, enumerable: true },
    finish: { value: finish, enumerable: true },
  }) as RedlineStopCondition<STEP>;
}
