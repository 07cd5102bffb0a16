import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verdictLines } from '../../src/study/report-markdown.js';
import type { NoiseAwareVerdict } from '../../src/study/verdicts.js';

/** σ = 0.02 of the default study (docs/stop-rules.md): confirm-2 reaches 100%, the estimated rule at best 99.9667%. */
const SIGMA_002: NoiseAwareVerdict = {
  sigma: 0.02,
  calibrated: { configured: true, estimated: true },
  shortfalls: [],
  confirm2: { meanSteps: 4.6623, trueReach: 100 },
  beatsConfirm2: { configured: [0.999], estimated: [] },
  closest: { estimated: { confidence: 0.9, meanSteps: 4.476, trueReach: 99.9667, reachShort: 0.0333, attemptsOver: 0 } },
};

describe('the noise-aware verdict text', () => {
  it('says that no confidence matches and by how much the closest misses, in digits that show the miss', () => {
    assert.deepEqual(verdictLines(SIGMA_002), [
      '- σ = 0.02: calibrated, σ configured and estimated.',
      '  Matches confirm-2 (≥ 100.0% true reach in ≤ 4.66 attempts): σ configured c = 0.999; σ estimated none: no confidence matches; the closest, c = 0.9, misses by 0.03 points of true reach (99.97% < 100.00%), in 4.48 attempts.',
    ]);
    assert.doesNotMatch(verdictLines(SIGMA_002).join('\n'), /\b0\.0 points|100\.0% in/);
  });

  it('names a miss in attempts, and a miss in both', () => {
    const attempts = verdictLines({
      ...SIGMA_002,
      closest: { estimated: { confidence: 0.95, meanSteps: 4.6631, trueReach: 100, reachShort: 0, attemptsOver: 0.0008 } },
    });
    assert.match(
      attempts[1] ?? '',
      /σ estimated none: no confidence matches; the closest, c = 0\.95, misses by 0\.001 attempts \(4\.663 > 4\.662\), at 100\.0% true reach\.$/,
    );
    const both = verdictLines({
      ...SIGMA_002,
      confirm2: { meanSteps: 4.9, trueReach: 97.5 },
      closest: { estimated: { confidence: 0.8, meanSteps: 5.02, trueReach: 96.1, reachShort: 1.4, attemptsOver: 0.12 } },
    });
    assert.match(
      both[1] ?? '',
      /the closest, c = 0\.8, misses by 1\.4 points of true reach \(96\.1% < 97\.5%\) and 0\.12 attempts \(5\.02 > 4\.90\)\.$/,
    );
  });

  it('shows a calibration shortfall below display precision as non-zero', () => {
    const lines = verdictLines({
      ...SIGMA_002,
      calibrated: { configured: false, estimated: true },
      shortfalls: [{ noise: 'configured', confidence: 0.999, required: 99.9, trueReach: 99.8667, short: 0.0333 }],
    });
    assert.equal(lines[0], '- σ = 0.02: not calibrated: configured c = 0.999 short by 0.03 points (99.87% < 99.90%).');
  });
});
