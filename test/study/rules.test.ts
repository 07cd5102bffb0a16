import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { AdaptivePriors } from '../../src/guards/adaptive-priors.js';
import { buildCell, type Cell } from '../../src/study/cell.js';
import { simulate, simulateAll } from '../../src/study/simulate.js';
import {
  buildStrategy,
  noiseAwareStrategy,
  STRATEGY_NAMES,
  warmPriors,
  type Strategy,
  type StrategyContext,
  type StrategyName,
} from '../../src/study/strategies.js';
import { generateTasks } from '../../src/study/task-model.js';

// Per-task properties of the strategies on the study's own simulated tasks, at several noise levels.
const BAR = 0.8;
const CAP = 8;
const SIGMAS = [0.02, 0.1, 0.2];

const cells: Cell[] = [];

function context(cell: Cell): StrategyContext {
  let warm: AdaptivePriors | undefined;
  return { bar: BAR, cap: CAP, cell, confidence: 0.9, warmPriors: () => (warm ??= warmPriors({ cell })) };
}

/** Where the strategy stopped on each test task of the cell: one stop per task, never none (an `every` over nothing holds). */
async function stops(name: StrategyName, cell: Cell): Promise<readonly number[]> {
  const stopped = (await simulate({ strategy: buildStrategy(name, context(cell)), tasks: cell.test, bar: BAR })).stops;
  assert.ok(cell.test.length > 0, `σ ${cell.sigma}: no test tasks`);
  assert.equal(stopped.length, cell.test.length, `${name}: a stop for each test task`);
  return stopped;
}

/** Indices of the test tasks on which `later` stopped before `earlier`. */
function earlierStops(earlier: readonly number[], later: readonly number[]): number[] {
  return later.flatMap((stop, index) => (stop < (earlier[index] as number) ? [index] : []));
}

describe('stop strategies on simulated tasks', () => {
  before(() => {
    for (const seed of [1, 2]) {
      const tasks = generateTasks({ tasksPerType: 60, cap: CAP, seed });
      for (const sigma of SIGMAS) cells.push(buildCell({ tasks, trainTasks: 90, sigma }));
    }
  });

  it('confirm-2 never stops earlier than threshold on the same scores', async () => {
    for (const cell of cells) {
      const threshold = await stops('threshold', cell);
      assert.deepEqual(earlierStops(threshold, await stops('confirm-2', cell)), [], `σ ${cell.sigma}`);
    }
  });

  it('margin and min-of-two never stop earlier than threshold (they need a higher score, or a lower one of two)', async () => {
    for (const cell of cells) {
      const threshold = await stops('threshold', cell);
      assert.deepEqual(earlierStops(threshold, await stops('margin-0.05', cell)), [], `margin, σ ${cell.sigma}`);
      assert.deepEqual(earlierStops(threshold, await stops('min-of-two', cell)), [], `min-of-two, σ ${cell.sigma}`);
    }
  });

  it('adaptive equals threshold on every task until its task type has 3 finished runs', async () => {
    for (const cell of cells) {
      const threshold = await stops('threshold', cell);
      const cold = await stops('adaptive-cold', cell);
      const finished = new Map<string, number>();
      let compared = 0;
      cell.test.forEach((task, index) => {
        const runs = finished.get(task.type) ?? 0;
        if (runs < 3) {
          assert.equal(cold[index], threshold[index], `task ${index} (${task.type}, ${runs} finished runs), σ ${cell.sigma}`);
          compared += 1;
        }
        finished.set(task.type, runs + 1);
      });
      assert.equal(compared, 9);
    }
  });

  it('strategies simulated side by side get the tallies they get one by one', async () => {
    for (const cell of cells) {
      // Fresh strategies per simulation: adaptive-cold learns as it goes.
      const strategies = (): Strategy[] => [
        ...STRATEGY_NAMES.map((name) => buildStrategy(name, context(cell))),
        ...[0.5, 0.9, 0.99].flatMap((confidence) =>
          (['configured', 'estimated'] as const).map((noise) => noiseAwareStrategy({ bar: BAR, cap: CAP, cell, confidence, noise })),
        ),
      ];
      const alone: unknown[] = [];
      for (const strategy of strategies()) alone.push(await simulate({ strategy, tasks: cell.test, bar: BAR }));
      assert.deepEqual(await simulateAll({ strategies: strategies(), tasks: cell.test, bar: BAR }), alone, `σ ${cell.sigma}`);
    }
  });

  it('a fixed budget always uses exactly its attempts; every rule stops within the cap', async () => {
    for (const cell of cells) {
      assert.ok((await stops('fixed-2', cell)).every((stop) => stop === 2));
      assert.ok((await stops('fixed-6', cell)).every((stop) => stop === 6));
      for (const name of ['threshold', 'adaptive', 'confirm-2', 'smooth-2', 'noise-aware'] as const) {
        assert.ok(
          (await stops(name, cell)).every((stop) => stop >= 1 && stop <= CAP),
          name,
        );
      }
    }
  });
});
