export type { AttemptSummary, BudgetLimits, Guard, GuardInput, RunCounters, StopVerdict } from './guard.js';
export { evaluatePolicy, policyLookback } from './guard.js';
export { confirm, margin, plateau, smooth, threshold } from './score.js';
export { attemptsBudget, budgets, costBudget, tokensBudget, wallClockBudget } from './budget.js';
export { DEFAULT_WINDOW_LOOKBACK, humanGate, noProgress, oscillation, rejectRepeat, repeatedOutput } from './thrash.js';
export { allOf, anyOf, not, type NotVerdict } from './combine.js';
export { buildGuard, buildPolicy, defaultGuards, guardSpecSchema, type GuardSpec, type GuardSpecInput } from './spec.js';
