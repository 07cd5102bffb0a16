import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { adaptive } from '../../src/guards/adaptive.js';
import { adaptiveCdv } from '../../src/guards/adaptive-cdv.js';
import { AdaptivePriors } from '../../src/guards/adaptive-priors.js';
import { threshold } from '../../src/guards/score.js';
import { history } from './history.js';

const at = (scores: readonly number[], taskType = 't', maxAttempts = 8) => ({
  ...history(
    scores.map((score) => ({ score })),
    { budgets: { maxAttempts } },
  ),
  taskType,
});

/** Priors that learned `runs` runs of type `t`, each with these scores. */
function learned(runs: number, scores: readonly number[]): AdaptivePriors {
  const priors = new AdaptivePriors();
  for (let run = 0; run < runs; run += 1) priors.record('t', scores);
  return priors;
}

describe('adaptiveCdv', () => {
  it('stops complete on a score at the bar, whatever it learned', () => {
    const verdict = adaptiveCdv({ bar: 0.8, priors: new AdaptivePriors() }).evaluate(at([0.5, 0.8]));
    assert.deepEqual([verdict?.reason, verdict?.outcome, verdict?.guard], ['adaptive', 'complete', 'adaptiveCdv(0.8)']);
  });

  it('is exactly threshold while the next attempt index has fewer than 3 learned gains', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 7 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 20 }),
        (scores, fewRuns, manyRuns) => {
          // Flat runs that would make the rule give up at once if it read them: the short ones reach
          // only up to the current attempt, so the next index has the few long runs' gains alone.
          const priors = new AdaptivePriors();
          for (let run = 0; run < manyRuns; run += 1) priors.record('t', new Array<number>(scores.length).fill(0.1));
          for (let run = 0; run < fewRuns; run += 1) priors.record('t', new Array<number>(8).fill(0.1));
          const input = at(scores);
          assert.equal(adaptiveCdv({ bar: 0.8, priors }).evaluate(input)?.outcome, threshold(0.8).evaluate(input)?.outcome);
        },
      ),
    );
  });

  it('counts observations per attempt index, where adaptive counts finished runs of the task type', () => {
    // 10 runs that stopped at attempt 2, and 2 that went on flat to attempt 8.
    const priors = learned(10, [0.3, 0.4]);
    for (let run = 0; run < 2; run += 1) priors.record('t', [0.3, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]);
    const input = at([0.3, 0.35]);
    assert.equal(adaptiveCdv({ bar: 0.8, priors }).evaluate(input), undefined, 'attempt 3 has only 2 learned gains: threshold');
    assert.equal(adaptive({ bar: 0.8, priors }).evaluate(input)?.reason, 'adaptive_giveup', 'adaptive has 12 runs and gives up');
    priors.record('t', [0.3, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4]);
    assert.equal(adaptiveCdv({ bar: 0.8, priors }).evaluate(input)?.reason, 'adaptive_giveup', 'a third observation at attempt 3');
  });

  it('treats an attempt index with fewer than 3 gains as gaining nothing, where adaptive carries the last one forward', () => {
    // 5 runs climb 0.1 per attempt but stopped at attempt 3; the later indices are unknown.
    const priors = learned(5, [0.3, 0.4, 0.5]);
    const input = at([0.4, 0.5]);
    const cdv = adaptiveCdv({ bar: 0.8, priors }).evaluate(input);
    assert.equal(cdv?.reason, 'adaptive_giveup', 'one known gain of 0.1 cannot close a gap of 0.3');
    assert.equal(cdv?.outcome, 'failed_with_evidence');
    assert.match(cdv?.detail ?? '', /P\(the 6 attempt\(s\) left gain ≥ 0\.3\) = 0 < 0\.3/);
    assert.equal(adaptive({ bar: 0.8, priors }).evaluate(input), undefined, 'adaptive expects 0.1 at each of the 6 attempts left');
  });

  it('keeps going when the learned gains can close the gap, and never gives up at the cap', () => {
    const priors = learned(4, [0.2, 0.35, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85]);
    assert.equal(adaptiveCdv({ bar: 0.8, priors }).evaluate(at([0.2, 0.35])), undefined);
    assert.equal(adaptiveCdv({ bar: 0.8, priors }).evaluate(at([0.2, 0.35, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3])), undefined);
    assert.equal(adaptiveCdv({ bar: 0.8, priors }).evaluate(at([0.2, 0.35], 'other')), undefined, 'another task type learned nothing');
  });

  it('takes minObservations and level', () => {
    const priors = learned(2, [0.3, 0.4, 0.5]);
    assert.equal(adaptiveCdv({ bar: 0.8, priors }).evaluate(at([0.4, 0.5])), undefined);
    assert.equal(adaptiveCdv({ bar: 0.8, priors, minObservations: 2 }).evaluate(at([0.4, 0.5]))?.reason, 'adaptive_giveup');
    assert.equal(adaptiveCdv({ bar: 0.8, priors, minObservations: 2, level: 0 }).evaluate(at([0.4, 0.5])), undefined);
  });

  it('rejects bad arguments', () => {
    const priors = new AdaptivePriors();
    assert.throws(() => adaptiveCdv({ bar: 1.5, priors }), /^TypeError: Expected `bar` to be a number in \[0, 1\], got 1\.5$/);
    assert.throws(() => adaptiveCdv({ bar: 0.8, priors, level: -1 }), TypeError);
    assert.throws(() => adaptiveCdv({ bar: 0.8, priors, minObservations: 0 }), /Expected `minObservations` to be an integer ≥ 1, got 0/);
  });
});
