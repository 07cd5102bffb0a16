import type { Check } from '../core/check.js';
import type { AdaptivePriors } from '../guards/adaptive-priors.js';
import { policyLookback, type BudgetLimits, type Guard } from '../guards/guard.js';
import { runtimeGuards } from '../guards/no-change.js';
import { buildGuard, type GuardSpec, type GuardSpecInput } from '../guards/spec.js';
import type { Ledger } from '../ledger/ledger.js';
import { defineMission, type Mission } from '../mission/mission.js';
import type { MissionInput } from '../mission/schema.js';
import { planHash } from '../state/signature.js';
import type { StepContext } from '../state/step.js';
import type { StepSlice } from './step-candidate.js';
import { isCheckSpec, stepChecks, type StepCheck, type StepCheckInput } from './step-checks.js';

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

/** What the adapter fixes before the first step: the mission it records, its guards, checks and step context. */
export interface StopWhenPlan<STEP> {
  readonly mission: Mission;
  /** The runtime's guards (no change, the budgets), then the policy, in order. */
  readonly guards: readonly Guard[];
  readonly limits: BudgetLimits;
  readonly checks: readonly StepCheck<STEP>[];
  /** Every check a step's findings may name (the checks, then the score's), as the run records them. */
  readonly plan: readonly Pick<Check, 'name' | 'stage' | 'tier' | 'required'>[];
  readonly context: StepContext;
}

/** The score of a step, as a finding of this (never required) semantic check. */
export const SCORE_CHECK = { name: 'scoreFrom', stage: 'fast', tier: 'semantic', required: false } as const;

const isGuard = (item: GuardSpecInput | Guard): item is Guard => typeof (item as Guard).evaluate === 'function';

/**
 * Validates the options as a mission file is validated (guard specs, budgets and check specs through the
 * mission schema) and builds the guard stack, the checks and the step context.
 * @throws {MissionError} naming the path of a guard, budget or check spec that does not validate.
 * @throws {TypeError} for options of the wrong type, a cost budget without a price, a check of another kind.
 */
export function planStopWhen<STEP extends StepSlice>(options: RedlineStopWhenOptions<STEP>): StopWhenPlan<STEP> {
  const { guards: guardInputs, price, scoreFrom, checks: checkInputs = [] } = options;
  if (!Array.isArray(guardInputs)) throw new TypeError(`Expected \`guards\` to be an array, got ${typeof guardInputs}`);
  if (!Array.isArray(checkInputs)) throw new TypeError(`Expected \`checks\` to be an array, got ${typeof checkInputs}`);
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
      : buildGuard((mission.stopPolicy.guards ?? [])[spec++] as GuardSpec, options.priors === undefined ? {} : { priors: options.priors }),
  );
  // The runtime's own guards come first, as in a mission run: a model that changes nothing, then the budgets.
  const guards = [...runtimeGuards('the model'), ...policy];
  const checks = stepChecks(checkInputs, mission.checks);
  const plan = [...checks, ...(scoreFrom === undefined ? [] : [SCORE_CHECK])];
  // Findings, acceptance and signatures go by check name: two checks of one name would stand for each other.
  const twice = plan.find((check, index) => plan.findIndex((other) => other.name === check.name) !== index);
  if (twice !== undefined)
    throw new TypeError(`Expected check names to be unique (\`${SCORE_CHECK.name}\` is the score's), got ${twice.name} twice`);
  const context: StepContext = {
    required: new Set(plan.filter((check) => check.required).map((check) => check.name)),
    promotion: new Set(plan.filter((check) => check.required && check.stage === 'promotion').map((check) => check.name)),
    plan: planHash(plan),
    lookback: Math.max(policyLookback(guards), mission.progressWindow),
  };
  const limits: BudgetLimits = {
    maxAttempts: mission.budgets.maxAttempts,
    ...(mission.budgets.maxTokens === undefined ? {} : { maxTokens: mission.budgets.maxTokens }),
    ...(mission.budgets.maxWallClock === undefined ? {} : { maxWallClockMs: mission.budgets.maxWallClock }),
    ...(mission.budgets.maxCostUsd === undefined ? {} : { maxCostUsd: mission.budgets.maxCostUsd }),
  };
  return { mission, guards, limits, checks, plan, context };
}
