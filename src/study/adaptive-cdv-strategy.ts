import { adaptiveCdv } from '../guards/adaptive-cdv.js';
import { AdaptivePriors } from '../guards/adaptive-priors.js';
import { attemptsBudget } from '../guards/budget.js';
import { plateau } from '../guards/score.js';
import { trainingTasks, type Cell } from './cell.js';
import { simulateOneJudge } from './simulate.js';
import type { Strategy } from './strategies.js';

/**
 * How the warm-up tasks teach adaptive-cdv: `rule` — the rule runs on them and learns each up to the
 * attempt it stopped on, as a runtime learns from its sealed runs; `whole` — each is learned over every
 * attempt up to the cap, as adaptive's warm-up is.
 */
export type CdvWarmup = 'rule' | 'whole';

/**
 * The plateau guard of the published stack: the last 3 scores within 0.01 of each other give up. 0.01 is the
 * seed's `CONVERGENCE_DELTA` (docs/stop-rules.md says what it changes against the 0.02 used before).
 */
export const CDV_PLATEAU = Object.freeze({ delta: 0.01, n: 3 });

/**
 * CDV's adaptive rule as published: `[attemptsBudget(), adaptiveCdv({ bar, priors }), plateau(0.01, 3)]`,
 * whose priors learn as a runtime's do, from every run the rule finishes, recorded up to the attempt it
 * stopped on. It is first warmed on the cell's first `warmup` training tasks (as `recorded` says), then
 * keeps learning from each test task it finishes.
 *
 * @example
 * adaptiveCdvStrategy({ bar: 0.8, cap: 8, cell }) // ran on the whole training half first
 * adaptiveCdvStrategy({ bar: 0.8, cap: 8, cell, warmup: 0 }) // cold: learns from the test tasks alone
 */
export function adaptiveCdvStrategy({
  bar,
  cap,
  cell,
  warmup = cell.train.length,
  recorded = 'rule',
}: {
  bar: number;
  cap: number;
  cell: Cell;
  warmup?: number;
  recorded?: CdvWarmup;
}): Strategy {
  const priors = new AdaptivePriors();
  const strategy: Strategy = {
    policy: [attemptsBudget(), adaptiveCdv({ bar, priors }), plateau(CDV_PLATEAU.delta, CDV_PLATEAU.n)],
    maxAttempts: cap,
    scores: 'single',
    finished: (task, stop) => priors.record(task.type, task.observed.slice(0, stop)),
  };
  if (recorded === 'rule') simulateOneJudge([strategy], trainingTasks(cell, 0, warmup), bar);
  else for (const { type, observed } of cell.train.slice(0, warmup)) priors.record(type, observed);
  return strategy;
}
