import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { minOfTwo } from '../../src/checks/min-of-two.js';
import { noiseAware, posteriorReach } from '../../src/guards/noise-aware.js';
import { history } from './history.js';

const scored = (scores: readonly number[]) => history(scores.map((score) => (score === undefined ? {} : { score })));
const scoresArb = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 10 });

describe('noiseAware', () => {
  it('gives a probability in [0, 1] for any scores, clipped ones included', () => {
    fc.assert(
      fc.property(scoresArb, fc.constantFrom(0.01, 0.1, 0.3), (scores, sigma) => {
        const p = posteriorReach(scored(scores).recent, 0.8, [sigma]);
        // NaN: no curve fits, and the guard does not stop on it.
        assert.ok(Number.isNaN(p) || (p >= 0 && p <= 1), `p = ${p}`);
        // The guard adds the model's own error (0.015) to the judge's σ.
        if (Number.isNaN(posteriorReach(scored(scores).recent, 0.8, [Math.hypot(sigma, 0.015)])))
          assert.equal(noiseAware({ bar: 0.8, confidence: 0.5, noise: sigma }).evaluate(scored(scores)), undefined);
      }),
    );
  });

  it('never stops earlier at a higher confidence on the same scores', () => {
    fc.assert(
      fc.property(
        scoresArb,
        fc.double({ min: 0.5, max: 0.99, noNaN: true }),
        fc.double({ min: 0.5, max: 0.99, noNaN: true }),
        (scores, c1, c2) => {
          const [low, high] = c1 <= c2 ? [c1, c2] : [c2, c1];
          const stopsAt = (confidence: number): number => {
            const guard = noiseAware({ bar: 0.8, confidence, noise: 0.1 });
            for (let t = 1; t <= scores.length; t += 1) if (guard.evaluate(scored(scores.slice(0, t))) !== undefined) return t;
            return Infinity;
          };
          assert.ok(stopsAt(high) >= stopsAt(low));
        },
      ),
    );
  });

  it('believes one high score from a precise judge but not from a noisy one', () => {
    const input = scored([0.5, 0.86]);
    assert.equal(noiseAware({ bar: 0.8, confidence: 0.9, noise: 0.01 }).evaluate(input)?.reason, 'noise_aware');
    assert.equal(noiseAware({ bar: 0.8, confidence: 0.9, noise: 0.2 }).evaluate(input), undefined);
  });

  it('is convinced by a consistent run of high scores even when it estimates the noise', () => {
    assert.equal(
      noiseAware({ bar: 0.8, confidence: 0.9, noise: 'estimate' }).evaluate(scored([0.6, 0.8, 0.9, 0.93, 0.95, 0.96]))?.outcome,
      'complete',
    );
    assert.equal(noiseAware({ bar: 0.8, confidence: 0.9, noise: 'estimate' }).evaluate(scored([0.3, 0.35, 0.4])), undefined);
  });

  it('keeps its posterior: reference probabilities of the model', () => {
    const sigma = (noise: number): number => Math.hypot(noise, 0.015);
    const estimated = Array.from({ length: 8 }, (_, k) => sigma(0.01 + ((k + 0.5) / 8) * 0.39));
    // Attempts numbered from `first`; `undefined` leaves an attempt unscored.
    const from = (first: number, ...scores: (number | undefined)[]) =>
      history(scores.map((score) => (score === undefined ? {} : { score }))).recent.map((summary, index) => ({
        ...summary,
        attempt: first + index,
      }));
    const rising = Array.from({ length: 70 }, (_, index) => 0.5 + 0.4 * (1 - Math.exp(-index / 10)));
    const cases: [string, number, number][] = [
      ['one score', posteriorReach(from(1, 0.86), 0.8, [sigma(0.1)]), 0.6984733289888029],
      ['a precise judge', posteriorReach(from(1, 0.5, 0.86), 0.8, [sigma(0.01)]), 0.9997828829534737],
      ['a noisy judge', posteriorReach(from(1, 0.5, 0.86), 0.8, [sigma(0.2)]), 0.5628001989454963],
      ['rising, σ estimated', posteriorReach(from(1, 0.6, 0.8, 0.9, 0.93, 0.95, 0.96), 0.8, estimated), 0.9998189769420022],
      ['low, σ estimated', posteriorReach(from(1, 0.3, 0.35, 0.4), 0.8, estimated), 0.005391116895901193],
      ['unscored attempts', posteriorReach(from(1, 0.4, undefined, 0.7, undefined, 0.82), 0.8, [sigma(0.05)]), 0.7942084447711353],
      ['clipped scores', posteriorReach(from(1, 0, 1, 1), 0.9, [sigma(0.1)]), 0.9996350006168571],
      ['from attempt 5', posteriorReach(from(5, 0.7, 0.75, 0.83), 0.8, estimated), 0.5719881585372945],
      ['beyond the lookback', posteriorReach(from(1, ...rising), 0.85, [sigma(0.05)]), 1],
    ];
    for (const [name, actual, expected] of cases)
      assert.ok(Math.abs(actual - expected) <= 1e-12 * expected, `${name}: ${actual}, expected ${expected}`);
  });

  it('gives every guard with the same bar and noise the posterior of its own history, whatever the order they ask in', () => {
    fc.assert(
      fc.property(
        fc.array(scoresArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.double({ min: 0.05, max: 0.99, noNaN: true }), { minLength: 1, maxLength: 4 }),
        fc.constantFrom<0.05 | 'estimate'>(0.05, 'estimate'),
        (runs, confidences, noise) => {
          const sigmas =
            noise === 'estimate'
              ? Array.from({ length: 8 }, (_, k) => Math.hypot(0.01 + ((k + 0.5) / 8) * 0.39, 0.015))
              : [Math.hypot(noise, 0.015)];
          const guards = confidences.map((confidence) => ({ confidence, guard: noiseAware({ bar: 0.8, confidence, noise }) }));
          // Every prefix of every run, runs interleaved: more summaries than the rule remembers.
          const inputs = runs.map((scores) => scored(scores));
          const longest = Math.max(...runs.map((scores) => scores.length));
          for (let length = 1; length <= longest; length += 1) {
            for (const input of inputs) {
              if (input.recent.length < length) continue;
              const prefix = { ...input, recent: input.recent.slice(0, length) };
              const probability = posteriorReach(prefix.recent, 0.8, sigmas);
              for (const { confidence, guard } of guards) assert.equal(guard.evaluate(prefix) !== undefined, probability >= confidence);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('stops on long runs only when the curve fits, once attempt 1 has left the lookback', () => {
    // After 64 attempts every curve of the prior is near 1: scores stuck at 0.3 fit none of them, and
    // the model must not vouch for a run it cannot explain.
    const wave = (n: number, level: number) => Array.from({ length: n }, (_, t) => Math.min(1, level + 0.02 * Math.sin(t)));
    for (const noise of [0.05, 'estimate'] as const) {
      for (const [scores, stops] of [
        [wave(150, 0.95), true],
        [wave(150, 0.3), false],
        [wave(40, 0.3), false],
      ] as const) {
        const recent = scored(scores).recent;
        for (const sigmas of [[0.05], [0.02, 0.1, 0.4]]) {
          const p = posteriorReach(recent, 0.8, sigmas);
          if (stops) assert.ok(p > 0.9 && p <= 1, `p = ${p}`);
          else assert.ok(Number.isNaN(p) || p < 0.5, `p = ${p} for ${scores.length} scores near ${scores[0]}`);
        }
        assert.equal(
          noiseAware({ bar: 0.8, confidence: 0.9, noise }).evaluate(scored(scores)) !== undefined,
          stops,
          `${scores.length} scores near ${scores[0]}, noise ${noise}`,
        );
      }
    }
    // Falling scores fit no rising curve either.
    assert.ok(Number.isNaN(posteriorReach(scored([0.95, 0.9, 0.8, 0.6, 0.4, 0.2]).recent, 0.8, [0.02])));
  });

  it('rejects bad options', () => {
    assert.throws(() => noiseAware({ bar: 1.2, confidence: 0.9, noise: 0.1 }), TypeError);
    assert.throws(() => noiseAware({ bar: 0.8, confidence: 0.9, noise: -1 }), TypeError);
  });
});

describe('minOfTwo', () => {
  const context = { candidate: { files: {}, footprint: [], hash: '' }, goal: '', attempt: 1, signal: new AbortController().signal };
  it("keeps the stricter score and both judges' notes", async () => {
    const score = minOfTwo(
      () => 0.9,
      async () => ({ score: 0.7, notes: [{ reasonCode: 'vague', message: 'too vague' }] }),
    );
    assert.deepEqual(await score(context), { score: 0.7, notes: [{ reasonCode: 'vague', message: 'too vague' }] });
  });

  it('refuses anything but two score functions', () => {
    assert.throws(() => minOfTwo(() => 1, 0.5 as never), /Expected two score functions/);
  });
});
