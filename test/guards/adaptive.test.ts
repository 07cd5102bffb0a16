import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { adaptive } from '../../src/guards/adaptive.js';
import { AdaptivePriors } from '../../src/guards/adaptive-priors.js';
import { threshold } from '../../src/guards/score.js';
import { history } from './history.js';

const scoresOf = (scores: readonly number[], maxAttempts = 8) =>
  history(
    scores.map((score) => ({ score })),
    { budgets: { maxAttempts } },
  );

describe('AdaptivePriors', () => {
  it('learns the mean and sample variance of the gain at each attempt', () => {
    const priors = new AdaptivePriors();
    priors.record('code', [0.2, 0.5, 0.6]);
    priors.record('code', [0.4, 0.5, 0.9]);
    assert.equal(priors.runs('code'), 2);
    assert.equal(priors.runs('text'), 0);
    assert.equal(priors.gain('code', 1), undefined);
    const second = priors.gain('code', 2);
    assert.equal(second?.n, 2);
    assert.ok(Math.abs((second?.mean ?? 0) - 0.2) < 1e-12);
    assert.ok(Math.abs((second?.variance ?? 0) - 0.02) < 1e-12);
    assert.ok(Math.abs((priors.gain('code', 3)?.mean ?? 0) - 0.25) < 1e-12);
  });

  it('round-trips through a snapshot', () => {
    const priors = new AdaptivePriors();
    priors.record('a', [0.1, 0.3, 0.35, 0.5]);
    priors.record('b', [0.7]);
    assert.deepEqual(AdaptivePriors.from(JSON.parse(JSON.stringify(priors))).toJSON(), priors.toJSON());
  });

  it('rejects a bad attempt index', () => {
    assert.throws(() => new AdaptivePriors().gain('a', 0), TypeError);
  });
});

describe('adaptive', () => {
  it('behaves exactly as threshold until the task type has 3 finished runs', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 2 }),
        (scores, runs) => {
          const priors = new AdaptivePriors();
          // Learned runs that would make the rule give up at once, if it used them.
          for (let run = 0; run < runs; run += 1) priors.record('t', [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]);
          const input = { ...scoresOf(scores), taskType: 't' };
          assert.equal(adaptive({ bar: 0.8, priors }).evaluate(input)?.outcome, threshold(0.8).evaluate(input)?.outcome);
        },
      ),
    );
  });

  it('gives up when the learned gains cannot close the gap, and keeps going when they can', () => {
    const flat = new AdaptivePriors();
    const steep = new AdaptivePriors();
    for (let run = 0; run < 3; run += 1) {
      flat.record('t', [0.3, 0.31, 0.32, 0.33, 0.34, 0.35, 0.36, 0.37]);
      steep.record('t', [0.3, 0.45, 0.6, 0.7, 0.78, 0.84, 0.88, 0.9]);
    }
    const input = { ...scoresOf([0.3, 0.31]), taskType: 't' };
    const verdict = adaptive({ bar: 0.8, priors: flat }).evaluate(input);
    assert.deepEqual([verdict?.reason, verdict?.outcome], ['adaptive_giveup', 'failed_with_evidence']);
    assert.equal(adaptive({ bar: 0.8, priors: steep }).evaluate({ ...scoresOf([0.3, 0.45]), taskType: 't' }), undefined);
  });

  it('stops complete on the bar like threshold once warm', () => {
    const priors = new AdaptivePriors();
    for (let run = 0; run < 3; run += 1) priors.record('t', [0.3, 0.5, 0.7, 0.9]);
    const verdict = adaptive({ bar: 0.8, priors }).evaluate({ ...scoresOf([0.5, 0.82]), taskType: 't' });
    assert.deepEqual([verdict?.reason, verdict?.outcome], ['adaptive', 'complete']);
  });
});
