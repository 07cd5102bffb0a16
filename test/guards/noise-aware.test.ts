import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { minOfTwo } from '../../src/checks/min-of-two.js';
import { noiseAware, posteriorReach } from '../../src/guards/noise-aware.js';
import { history } from './history.js';

const scored = (scores: readonly number[]) => history(scores.map((score) => ({ score })));
const scoresArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 10 });

describe('noiseAware', () => {
  it('gives a probability in [0, 1] for any scores, clipped ones included', () => {
    fc.assert(
      fc.property(scoresArb, fc.constantFrom(0.01, 0.1, 0.3), (scores, sigma) => {
        const p = posteriorReach(scored(scores).recent, 0.8, [sigma]);
        assert.ok(p >= 0 && p <= 1, `p = ${p}`);
      }),
    );
  });

  it('never stops earlier at a higher confidence on the same scores', () => {
    fc.assert(
      fc.property(scoresArb, fc.double({ min: 0.5, max: 0.99, noNaN: true }), fc.double({ min: 0.5, max: 0.99, noNaN: true }), (scores, c1, c2) => {
        const [low, high] = c1 <= c2 ? [c1, c2] : [c2, c1];
        const stopsAt = (confidence: number): number => {
          const guard = noiseAware({ bar: 0.8, confidence, noise: 0.1 });
          for (let t = 1; t <= scores.length; t += 1) if (guard.evaluate(scored(scores.slice(0, t))) !== undefined) return t;
          return Infinity;
        };
        assert.ok(stopsAt(high) >= stopsAt(low));
      }),
    );
  });

  it('believes one high score from a precise judge but not from a noisy one', () => {
    const input = scored([0.5, 0.86]);
    assert.equal(noiseAware({ bar: 0.8, confidence: 0.9, noise: 0.01 }).evaluate(input)?.reason, 'noise_aware');
    assert.equal(noiseAware({ bar: 0.8, confidence: 0.9, noise: 0.2 }).evaluate(input), undefined);
  });

  it('is convinced by a consistent run of high scores even when it estimates the noise', () => {
    assert.equal(noiseAware({ bar: 0.8, confidence: 0.9, noise: 'estimate' }).evaluate(scored([0.6, 0.8, 0.9, 0.93, 0.95, 0.96]))?.outcome, 'complete');
    assert.equal(noiseAware({ bar: 0.8, confidence: 0.9, noise: 'estimate' }).evaluate(scored([0.3, 0.35, 0.4])), undefined);
  });

  it('rejects bad options', () => {
    assert.throws(() => noiseAware({ bar: 1.2, confidence: 0.9, noise: 0.1 }), TypeError);
    assert.throws(() => noiseAware({ bar: 0.8, confidence: 0.9, noise: -1 }), TypeError);
  });
});

describe('minOfTwo', () => {
  const context = { candidate: { files: {}, footprint: [], hash: '' }, goal: '', attempt: 1, signal: new AbortController().signal };
  it('keeps the stricter score and both judges\' notes', async () => {
    const score = minOfTwo(() => 0.9, async () => ({ score: 0.7, notes: [{ reasonCode: 'vague', message: 'too vague' }] }));
    assert.deepEqual(await score(context), { score: 0.7, notes: [{ reasonCode: 'vague', message: 'too vague' }] });
  });

  it('refuses anything but two score functions', () => {
    assert.throws(() => minOfTwo(() => 1, 0.5 as never), /Expected two score functions/);
  });
});
