import { adaptive } from '../guards/adaptive.js';
import { AdaptivePriors } from '../guards/adaptive-priors.js';
import { attemptsBudget } from '../guards/budget.js';
import type { Guard } from '../guards/guard.js';
import { noiseAware } from '../guards/noise-aware.js';
import { confirm, margin, smooth, threshold } from '../guards/score.js';
import { buildPolicy, needsPriors, type GuardSpec } from '../guards/spec.js';
import { adaptiveCdvStrategy } from './adaptive-cdv-strategy.js';
import type { Cell, CellTask } from './cell.js';

/** The study's built-in strategies, `adaptive-cdv` (CDV's rule as published) included, in report order. */
export const STRATEGY_NAMES = Object.freeze([
  'fixed-2',
  'fixed-6',
  'threshold',
  'adaptive',
  'adaptive-cold',
  'adaptive-cdv',
  'confirm-2',
  'smooth-2',
  'margin-0.05',
  'noise-aware',
  'min-of-two',
] as const);

export type StrategyName = (typeof STRATEGY_NAMES)[number];

/** A stop policy ready to simulate on one cell's test tasks. */
export interface Strategy {
  /** The guard stack, budget first, evaluated after every attempt; the first verdict stops the task. */
  readonly policy: readonly Guard[];
  readonly maxAttempts: number;
  /** Which scores the guards read: judge A's, or the two-judge composition's. */
  readonly scores: 'single' | 'minOfTwo';
  /** Called after each test task, in order, with the attempt it stopped on (a learning rule learns here). */
  readonly finished?: (task: CellTask, stop: number) => void;
}

/** What a strategy is built from for one cell. */
export interface StrategyContext {
  readonly bar: number;
  readonly cap: number;
  readonly cell: Cell;
  /** Confidence of the `noise-aware` strategy. */
  readonly confidence: number;
  /** Priors warmed on the cell's whole training half (built once per cell). */
  readonly warmPriors: () => AdaptivePriors;
}

const rule = (cap: number, ...guards: Guard[]): Strategy => ({ policy: [attemptsBudget(), ...guards], maxAttempts: cap, scores: 'single' });

const BUILDERS: Readonly<Record<StrategyName, (context: StrategyContext) => Strategy>> = {
  'fixed-2': () => rule(2),
  'fixed-6': () => rule(6),
  threshold: ({ bar, cap }) => rule(cap, threshold(bar)),
  adaptive: ({ bar, cap, warmPriors }) => rule(cap, adaptive({ bar, priors: warmPriors() })),
  'adaptive-cold': ({ bar, cap }) => {
    // Learns online: each finished test run is recorded up to where it stopped.
    const priors = new AdaptivePriors();
    return { ...rule(cap, adaptive({ bar, priors })), finished: (task, stop) => priors.record(task.type, task.observed.slice(0, stop)) };
  },
  'adaptive-cdv': ({ bar, cap, cell }) => adaptiveCdvStrategy({ bar, cap, cell }),
  'confirm-2': ({ bar, cap }) => rule(cap, confirm(2, bar)),
  'smooth-2': ({ bar, cap }) => rule(cap, smooth(2, bar)),
  'margin-0.05': ({ bar, cap }) => rule(cap, margin(0.05, bar)),
  'noise-aware': ({ bar, cap, cell, confidence }) => rule(cap, noiseAware({ bar, confidence, noise: cell.sigma })),
  'min-of-two': ({ bar, cap }) => ({ ...rule(cap, threshold(bar)), scores: 'minOfTwo' }),
};

/**
 * Builds a strategy's guards for one cell. Every rule is the library's own guard; fresh guards and priors
 * per cell keep cells independent.
 */
export function buildStrategy(name: StrategyName, context: StrategyContext): Strategy {
  return BUILDERS[name](context);
}

/** The noise-aware rule at `confidence`, told the true σ (`configured`) or estimating it from the scores. */
export function noiseAwareStrategy({
  bar,
  cap,
  cell,
  confidence,
  noise,
}: {
  bar: number;
  cap: number;
  cell: Cell;
  confidence: number;
  noise: 'configured' | 'estimated';
}): Strategy {
  return rule(cap, noiseAware({ bar, confidence, noise: noise === 'configured' ? cell.sigma : 'estimate' }));
}

/**
 * A user's guard stack (mission-file syntax) as a strategy: the attempt budget first, then its guards in
 * order; an `adaptive` guard reads `priors`.
 *
 * @example
 * policyStrategy({ cap: 8, guards: [{ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1 } }, { confirm: { k: 2, bar: 0.8 } }], priors })
 */
export function policyStrategy({
  cap,
  guards,
  priors,
}: {
  cap: number;
  guards: readonly GuardSpec[];
  priors: () => AdaptivePriors;
}): Strategy {
  return rule(cap, ...buildPolicy(guards, needsPriors(guards) ? { priors: priors() } : {}));
}

/** Adaptive over `priors` (which the caller may keep warming between simulations). */
export function adaptiveStrategy({ bar, cap, priors }: { bar: number; cap: number; priors: AdaptivePriors }): Strategy {
  return rule(cap, adaptive({ bar, priors }));
}

/**
 * Records training tasks `from` (inclusive) to `to` (exclusive) of `cell` into `priors`, each with its
 * scores over every attempt, and returns `priors`.
 *
 * @example
 * warmPriors({ cell }) // priors warmed on the whole training half
 */
export function warmPriors({
  cell,
  from = 0,
  to = cell.train.length,
  priors = new AdaptivePriors(),
}: {
  cell: Cell;
  from?: number;
  to?: number;
  priors?: AdaptivePriors;
}): AdaptivePriors {
  for (const { type, observed } of cell.train.slice(from, to)) priors.record(type, observed);
  return priors;
}
