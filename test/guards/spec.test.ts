import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { AdaptivePriors } from '../../src/guards/adaptive-priors.js';
import { buildGuard, buildPolicy, defaultGuards, guardSpecSchema, needsPriors, type GuardSpec } from '../../src/guards/spec.js';
import { history, scored, states } from './history.js';

const KINDS =
  'threshold, confirm, smooth, margin, plateau, adaptive, noiseAware, repeatedOutput, oscillation, rejectRepeat, noProgress, humanGate, anyOf, allOf, not';

/** The issues zod reports for `value`, as `path: message` lines. */
function issues(value: unknown): string[] {
  const result = guardSpecSchema.safeParse(value);
  assert.equal(result.success, false, `expected ${JSON.stringify(value)} to be rejected`);
  return (result.error?.issues ?? []).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('guardSpecSchema', () => {
  test('accepts every guard kind', () => {
    const specs = [
      { threshold: { bar: 0.8 } },
      { confirm: { k: 2, bar: 0.8 } },
      { smooth: { k: 2, bar: 0.8 } },
      { margin: { m: 0.05, bar: 0.8 } },
      { plateau: { delta: 0.01, n: 3 } },
      { adaptive: { bar: 0.8, level: 0.2, minRuns: 5 } },
      { noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1 } },
      { noiseAware: { bar: 0.8, confidence: 0.9, noise: 'estimate' } },
      { repeatedOutput: { window: 4, repeats: 3 } },
      { oscillation: {} },
      { oscillation: { window: 5 } },
      { rejectRepeat: {} },
      { noProgress: { window: 2 } },
      { humanGate: { n: 3 } },
      { anyOf: [{ threshold: { bar: 0.9 } }, { allOf: [{ rejectRepeat: {} }] }] },
      { not: { guard: { smooth: { k: 3, bar: 0.5 } }, reason: 'score_collapsed', outcome: 'failed_with_evidence' } },
    ];
    for (const spec of specs) assert.deepEqual(guardSpecSchema.parse(spec), spec);
  });

  test('fills in repeatedOutput defaults', () => {
    assert.deepEqual(guardSpecSchema.parse({ repeatedOutput: {} }), { repeatedOutput: { window: 3, repeats: 2 } });
  });

  test('fills in adaptive defaults: level 0.3, minRuns 3', () => {
    assert.deepEqual(guardSpecSchema.parse({ adaptive: { bar: 0.8 } }), { adaptive: { bar: 0.8, level: 0.3, minRuns: 3 } });
  });

  test('validates adaptive and noiseAware parameters with their path', () => {
    assert.deepEqual(issues({ adaptive: {} }), ['adaptive.bar: Invalid input: expected number, received undefined']);
    assert.deepEqual(issues({ adaptive: { bar: 0.8, level: 1.5 } }), ['adaptive.level: Too big: expected number to be <=1']);
    assert.deepEqual(issues({ adaptive: { bar: 0.8, minRuns: -1 } }), ['adaptive.minRuns: Too small: expected number to be >=0']);
    assert.deepEqual(issues({ adaptive: { bar: 0.8, minRuns: 2.5 } }), ['adaptive.minRuns: Invalid input: expected int, received number']);
    assert.deepEqual(issues({ adaptive: { bar: 0.8, priors: {} } }), ['adaptive: Unrecognized key: "priors"']);
    assert.deepEqual(issues({ noiseAware: { bar: 0.8, confidence: 0.9 } }), [
      'noiseAware.noise: Expected a number in [0.000001, 1] or "estimate"',
    ]);
    assert.deepEqual(issues({ noiseAware: { bar: 0.8, confidence: 0.9, noise: 'guess' } }), [
      'noiseAware.noise: Expected a number in [0.000001, 1] or "estimate"',
    ]);
    assert.deepEqual(issues({ noiseAware: { bar: 0.8, confidence: 0.9, noise: 2 } }), [
      'noiseAware.noise: Too big: expected number to be <=1',
    ]);
    assert.deepEqual(issues({ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0 } }), [
      'noiseAware.noise: Too small: expected number to be >=0.000001',
    ]);
    assert.deepEqual(issues({ noiseAware: { bar: 0.8, confidence: 1.1, noise: 0.1 } }), [
      'noiseAware.confidence: Too big: expected number to be <=1',
    ]);
    assert.deepEqual(issues({ noiseAware: { bar: -0.1, confidence: 0.9, noise: 0.1 } }), [
      'noiseAware.bar: Too small: expected number to be >=0',
    ]);
    assert.deepEqual(issues({ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1, sigma: 0.1 } }), [
      'noiseAware: Unrecognized key: "sigma"',
    ]);
  });

  test('an unknown guard kind is an error naming it', () => {
    const [issue] = issues({ treshold: { bar: 0.8 } });
    assert.match(issue ?? '', /^: Unknown guard "treshold"; expected one of threshold, confirm, .*, not$/);
  });

  test('an unknown parameter is an error naming it', () => {
    assert.deepEqual(issues({ confirm: { k: 2, bar: 0.8, kk: 3 } }), ['confirm: Unrecognized key: "kk"']);
  });

  test('a nested unknown kind is reported at its path', () => {
    const [issue] = issues({ anyOf: [{ threshold: { bar: 0.8 } }, { plateu: { delta: 0.1, n: 2 } }] });
    assert.match(issue ?? '', /^anyOf\.1: Unknown guard "plateu"/);
  });

  test('requires exactly one guard kind', () => {
    assert.deepEqual(issues({}), [`: Expected exactly one guard (one of ${KINDS}), got none`]);
    assert.deepEqual(issues({ threshold: { bar: 0.8 }, confirm: { k: 2, bar: 0.8 } }), [
      `: Expected exactly one guard (one of ${KINDS}), got threshold, confirm`,
    ]);
  });

  test('validates ranges with the parameter path', () => {
    assert.deepEqual(issues({ threshold: { bar: 1.2 } }), ['threshold.bar: Too big: expected number to be <=1']);
    assert.deepEqual(issues({ confirm: { k: 0, bar: 0.8 } }), ['confirm.k: Too small: expected number to be >=1']);
    assert.deepEqual(issues({ smooth: { k: 1.5, bar: 0.8 } }), ['smooth.k: Invalid input: expected int, received number']);
    assert.deepEqual(issues({ plateau: { delta: 0.1, n: 1 } }), ['plateau.n: Too small: expected number to be >=2']);
    assert.deepEqual(issues({ repeatedOutput: { window: 2, repeats: 3 } }), ['repeatedOutput.repeats: Expected repeats ≤ window']);
    assert.deepEqual(issues({ oscillation: { window: 1 } }), ['oscillation.window: Too small: expected number to be >=2']);
    assert.deepEqual(issues({ humanGate: {} }), ['humanGate.n: Invalid input: expected number, received undefined']);
    assert.deepEqual(issues({ anyOf: [] }), ['anyOf: Too small: expected array to have >=1 items']);
  });

  test('validates a not spec', () => {
    assert.deepEqual(issues({ not: { guard: { rejectRepeat: {} }, reason: 'x', outcome: 'done' } }), [
      'not.outcome: Invalid option: expected one of "complete"|"complete_noop"|"blocked"|"failed_with_evidence"',
    ]);
    assert.deepEqual(issues({ not: { guard: { rejectRepeat: {} }, outcome: 'blocked' } }), [
      'not.reason: Invalid input: expected string, received undefined',
    ]);
  });

  test('publishes as JSON Schema', () => {
    const schema = JSON.stringify(z.toJSONSchema(guardSpecSchema, { io: 'input' }));
    assert.match(schema, /"additionalProperties":false/);
    assert.match(schema, /"threshold"/);
    assert.match(
      schema,
      /"noise":\{"anyOf":\[\{"type":"number","minimum":0.000001,"maximum":1\},\{"type":"string","const":"estimate"\}\]\}/,
    );
  });
});

describe('buildGuard', () => {
  test('builds each kind under its factory name', () => {
    const names = [
      [{ threshold: { bar: 0.8 } }, 'threshold(0.8)'],
      [{ confirm: { k: 2, bar: 0.8 } }, 'confirm(2, 0.8)'],
      [{ smooth: { k: 3, bar: 0.7 } }, 'smooth(3, 0.7)'],
      [{ margin: { m: 0.05, bar: 0.8 } }, 'margin(0.05, 0.8)'],
      [{ plateau: { delta: 0.01, n: 3 } }, 'plateau(0.01, 3)'],
      [{ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0.1 } }, 'noiseAware(0.8, 0.9, σ 0.1)'],
      [{ noiseAware: { bar: 0.8, confidence: 0.95, noise: 'estimate' } }, 'noiseAware(0.8, 0.95, σ estimated)'],
      [{ repeatedOutput: { window: 3, repeats: 2 } }, 'repeatedOutput(3, 2)'],
      [{ oscillation: {} }, 'oscillation()'],
      [{ oscillation: { window: 4 } }, 'oscillation(4)'],
      [{ rejectRepeat: {} }, 'rejectRepeat()'],
      [{ noProgress: {} }, 'noProgress()'],
      [{ humanGate: { n: 2 } }, 'humanGate(2)'],
      [{ anyOf: [{ rejectRepeat: {} }, { humanGate: { n: 2 } }] }, 'anyOf(rejectRepeat(), humanGate(2))'],
      [{ allOf: [{ rejectRepeat: {} }] }, 'allOf(rejectRepeat())'],
      [{ not: { guard: { rejectRepeat: {} }, reason: 'x', outcome: 'blocked' } }, 'not(rejectRepeat())'],
    ] as const satisfies readonly (readonly [GuardSpec, string])[];
    for (const [spec, name] of names) assert.equal(buildGuard(spec).name, name);
  });

  test('builds working guards from parsed specs', () => {
    const guard = buildGuard(guardSpecSchema.parse({ anyOf: [{ confirm: { k: 2, bar: 0.8 } }, { oscillation: {} }] }));
    assert.equal(guard.evaluate(scored(0.9, 0.85))?.guard, 'confirm(2, 0.8)');
    assert.equal(guard.evaluate(states('A', 'B', 'A'))?.guard, 'oscillation()');
    assert.equal(guard.evaluate(history([{}])), undefined);
  });

  test('passes the not verdict through', () => {
    const guard = buildGuard({ not: { guard: { threshold: { bar: 0.5 } }, reason: 'too_low', outcome: 'blocked', detail: 'below 0.5' } });
    assert.deepEqual(guard.evaluate(scored(0.2)), {
      guard: 'not(threshold(0.5))',
      reason: 'too_low',
      outcome: 'blocked',
      detail: 'below 0.5',
    });
  });

  test('rejects a spec without exactly one kind', () => {
    assert.throws(() => buildGuard({} as GuardSpec), {
      name: 'TypeError',
      message: /^Expected a guard spec with exactly one of threshold, .*, got \{\}$/,
    });
    assert.throws(() => buildGuard({ tresh: {} } as unknown as GuardSpec), { name: 'TypeError', message: /^Unknown guard "tresh"/ });
  });

  test('out-of-range parameters still throw from the factory', () => {
    assert.throws(() => buildGuard({ threshold: { bar: 2 } }), TypeError);
    assert.throws(() => buildGuard({ noiseAware: { bar: 0.8, confidence: 0.9, noise: 0 } }), { name: 'TypeError', message: /`noise`/ });
  });

  test('builds adaptive over the priors in the context, at any depth', () => {
    const priors = new AdaptivePriors();
    for (let run = 0; run < 3; run += 1) priors.record('essay', [0.1, 0.12, 0.14, 0.16]);
    const spec = guardSpecSchema.parse({ anyOf: [{ adaptive: { bar: 0.8 } }] });
    const guard = buildGuard(spec, { priors });
    assert.equal(guard.name, 'anyOf(adaptive(0.8))');
    // Three runs gained 0.02 an attempt: from 0.2 with 4 attempts left, 0.8 is out of reach.
    const input = { ...scored(0.2), budgets: { maxAttempts: 5 }, taskType: 'essay' };
    assert.equal(guard.evaluate(input)?.reason, 'adaptive_giveup');
    assert.equal(guard.evaluate({ ...input, taskType: 'unseen' }), undefined, 'a task type without 3 runs behaves as threshold');
    assert.equal(guard.evaluate({ ...scored(0.85), taskType: 'unseen' })?.reason, 'adaptive');
  });

  test('an adaptive spec without priors in the context is a TypeError naming them', () => {
    const spec = guardSpecSchema.parse({ not: { guard: { adaptive: { bar: 0.8 } }, reason: 'x', outcome: 'blocked' } });
    assert.throws(() => buildGuard(spec), { name: 'TypeError', message: /^Expected `priors` in the build context for the adaptive guard/ });
    assert.throws(() => buildPolicy([{ threshold: { bar: 0.8 } }, spec]), { name: 'TypeError', message: /`priors`/ });
  });
});

describe('buildPolicy and defaultGuards', () => {
  test('the default guards are oscillation, repeatedOutput(3, 2) and noProgress', () => {
    assert.deepEqual(defaultGuards(), [{ oscillation: {} }, { repeatedOutput: { window: 3, repeats: 2 } }, { noProgress: {} }]);
    assert.deepEqual(
      buildPolicy(defaultGuards()).map((guard) => guard.name),
      ['oscillation()', 'repeatedOutput(3, 2)', 'noProgress()'],
    );
  });

  test('the default guards parse as specs', () => {
    for (const spec of defaultGuards()) assert.deepEqual(guardSpecSchema.parse(spec), spec);
  });

  test('needsPriors finds an adaptive spec at any depth', () => {
    assert.equal(needsPriors(defaultGuards()), false);
    assert.equal(needsPriors([{ noiseAware: { bar: 0.8, confidence: 0.9, noise: 'estimate' } }]), false);
    assert.equal(needsPriors([guardSpecSchema.parse({ adaptive: { bar: 0.8 } })]), true);
    assert.equal(
      needsPriors([
        guardSpecSchema.parse({
          allOf: [{ rejectRepeat: {} }, { anyOf: [{ not: { guard: { adaptive: { bar: 0.8 } }, reason: 'x', outcome: 'blocked' } }] }],
        }),
      ]),
      true,
    );
  });

  test('rejects a non-array', () => {
    assert.throws(() => buildPolicy({} as readonly GuardSpec[]), {
      name: 'TypeError',
      message: 'Expected an array of guard specs, got object',
    });
  });
});
