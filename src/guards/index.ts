export type { AttemptSummary, BudgetLimits, Guard, GuardInput, RunCounters, StopVerdict } from './guard.js';
export { evaluatePolicy, policyLookback } from './guard.js';
export { confirm, margin, plateau, smooth, threshold } from './score.js';
export { attemptsBudget, budgets, costBudget, tokensBudget, wallClockBudget } from './budget.js';
export { DEFAULT_WINDOW_LOOKBACK, humanGate, noProgress, oscillation, rejectRepeat, repeatedOutput } from './thrash.js';
export { allOf, anyOf, not, type NotVerdict } from './combine.js';
export {
  buildGuard,
  buildPolicy,
  defaultGuards,
  guardSpecSchema,
  needsPriors,
  type GuardBuildContext,
  type GuardSpec,
  type GuardSpecInput,
} from './spec.js';
export { adaptive, type AdaptiveOptions } from './adaptive.js';
export { adaptiveCdv, type AdaptiveCdvOptions } from './adaptive-cdv.js';
export { AdaptivePriors, type GainStats, type PriorsSnapshot } from './adaptive-priors.js';
export { noiseAware, NOISE_AWARE_PRIOR, type NoiseAwareOptions } from './noise-aware.js';
