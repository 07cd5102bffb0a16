import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sfc32 } from '../../src/study/prng.js';
import { StudyOptionError } from '../../src/study/study-option-error.js';
import {
  DRAFT_QUALITY_WEIGHTS,
  HANDOFF_CONFIGS,
  renderHandoffFigure,
  renderHandoffMarkdown,
  runHandoffStudy,
  simulateHandoff,
  type HandoffConfig,
  type HandoffRow,
  type HandoffStudy,
  type HandoffVariant,
} from '../../src/study/handoff/index.js';

const row = (study: HandoffStudy, config: string, variant: HandoffVariant): HandoffRow => {
  const found = study.find((item) => item.config === config && item.variant === variant);
  assert.ok(found, `no row for ${config} ${variant}`);
  return found;
};

const streams = (seed: number) => ({ burst: sfc32(seed), quality: sfc32(seed + 1), priority: sfc32(seed + 2), approval: sfc32(seed + 3) });

const trace = ({
  config,
  variant,
  seed,
  minutes = 120,
  capacity = 50,
}: {
  config: HandoffConfig;
  variant: HandoffVariant;
  seed: number;
  minutes?: number;
  capacity?: number;
}) => simulateHandoff({ config, variant, minutes, capacity, draftWeights: DRAFT_QUALITY_WEIGHTS, streams: streams(seed) });

const arbitraryConfig = fc.record({
  name: fc.constant('X'),
  productionRate: fc.integer({ min: 0, max: 8 }),
  reviewRate: fc.integer({ min: 0, max: 6 }),
  burstProbability: fc.double({ min: 0, max: 0.5, noNaN: true }),
});

const SEEDS = [1, 2, 3, 4, 5];

describe('runHandoffStudy', () => {
  it('reports configurations A–D, each in the simple model and under the protocol', () => {
    const study = runHandoffStudy();
    assert.deepEqual(
      study.map(({ config, variant }) => `${config} ${variant}`),
      ['A simple', 'A protocol', 'B simple', 'B protocol', 'C simple', 'C protocol', 'D simple', 'D protocol'],
    );
    for (const item of study) {
      for (const key of ['arrivals', 'dropped', 'overflowPct', 'reviewed', 'avgWaitMin', 'maxWaitMin', 'finalLimit'] as const)
        assert.equal(typeof item[key], 'number', `${item.config} ${item.variant} ${key}`);
      assert.ok(Array.isArray(item.limitTrajectory));
    }
  });

  it('gives byte-identical JSON for the same seed, and different JSON for another', () => {
    const once = JSON.stringify(runHandoffStudy({ seed: 7 }));
    assert.equal(JSON.stringify(runHandoffStudy({ seed: 7 })), once);
    assert.notEqual(JSON.stringify(runHandoffStudy({ seed: 8 })), once);
  });

  it("gives a configuration's rows independently of the other configurations run", () => {
    const alone = runHandoffStudy({ seed: 3, configs: HANDOFF_CONFIGS.filter(({ name }) => name === 'C') });
    assert.deepEqual(
      alone,
      runHandoffStudy({ seed: 3 }).filter(({ config }) => config === 'C'),
    );
  });

  it('counts every produced item as an arrival, and every arrival as reviewed, dropped or still queued', () => {
    for (const seed of SEEDS) {
      for (const item of runHandoffStudy({ seed, minutes: 90 })) {
        assert.equal(item.arrivals, item.productionRate * (90 + 2 * item.bursts), `${item.config} ${item.variant}`);
        assert.equal(item.arrivals, item.reviewed + item.dropped + item.finalDepth);
      }
    }
    const traced = trace({ config: HANDOFF_CONFIGS[2] as HandoffConfig, variant: 'protocol', seed: 11 });
    const produced = traced.minutes.reduce((sum, minute) => sum + minute.produced, 0);
    assert.equal(produced, traced.reviews.length + traced.drops.length + (traced.minutes.at(-1)?.depth ?? 0));
  });

  it('drops nothing when review comfortably outpaces production without bursts', () => {
    const study = runHandoffStudy({ configs: [{ name: 'calm', productionRate: 2, reviewRate: 6, burstProbability: 0 }] });
    assert.equal(study.length, 2);
    for (const item of study) {
      assert.equal(item.arrivals, 240);
      assert.equal(item.dropped, 0);
      assert.equal(item.overflowPct, 0);
      assert.equal(item.reviewed, 240);
      assert.equal(item.maxWaitMin, 0);
      assert.equal(item.degradedMinutes, 0);
      assert.equal(item.drafts, 0);
    }
  });

  it('overflows more under overload (B) than at baseline (A), in both variants', () => {
    for (const seed of SEEDS) {
      const study = runHandoffStudy({ seed });
      for (const variant of ['simple', 'protocol'] as const) {
        assert.ok(row(study, 'B', variant).overflowPct > row(study, 'A', variant).overflowPct, `seed ${seed} ${variant}`);
      }
    }
  });

  it('writes every protocol drop to the circuit-breaker log and none of the simple model overflows', () => {
    const study = runHandoffStudy({ seed: 2 });
    for (const item of study) assert.equal(item.breakerLogged, item.variant === 'protocol' ? item.dropped : 0);
    assert.ok(row(study, 'B', 'protocol').breakerLogged > 0);
  });

  it('keeps the attempt limit in [3, 15], changing by at most 1 per minute', () => {
    for (const seed of SEEDS) {
      for (const item of runHandoffStudy({ seed })) {
        assert.deepEqual(item.limitTrajectory[0], [0, 5]);
        for (let index = 1; index < item.limitTrajectory.length; index += 1) {
          const [minute, limit] = item.limitTrajectory[index] as readonly [number, number];
          const [before, previous] = item.limitTrajectory[index - 1] as readonly [number, number];
          assert.ok(minute > before, 'one change per minute at most');
          assert.equal(Math.abs(limit - previous), 1);
          assert.ok(limit >= 3 && limit <= 15);
        }
        assert.equal(item.finalLimit, item.limitTrajectory.at(-1)?.[1]);
      }
    }
    fc.assert(
      fc.property(arbitraryConfig, fc.integer({ min: 0, max: 1000 }), (config, seed) => {
        let previous = 5;
        for (const { limit } of trace({ config, variant: 'protocol', seed }).minutes) {
          assert.ok(limit >= 3 && limit <= 15 && Math.abs(limit - previous) <= 1);
          previous = limit;
        }
      }),
      { numRuns: 60 },
    );
  });

  it('never lets the protocol queue exceed capacity, and drops only at capacity', () => {
    fc.assert(
      fc.property(arbitraryConfig, fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 1000 }), (config, capacity, seed) => {
        const traced = trace({ config, variant: 'protocol', seed, capacity, minutes: 150 });
        for (const minute of traced.minutes) assert.ok(minute.peakDepth <= capacity && minute.depth <= minute.peakDepth);
        for (const drop of traced.drops) assert.equal(drop.depth, capacity);
      }),
      { numRuns: 100 },
    );
  });

  it('produces drafts only under the protocol, and only while degraded', () => {
    for (const item of runHandoffStudy({ seed: 4 })) {
      if (item.variant === 'simple' || item.degradedMinutes === 0) assert.equal(item.drafts, 0, `${item.config} ${item.variant}`);
    }
    assert.ok(row(runHandoffStudy({ seed: 4 }), 'D', 'protocol').drafts > 0);
  });

  it('names the bad option', () => {
    assert.throws(
      () => runHandoffStudy({ minutes: 0 }),
      (error: unknown) => error instanceof StudyOptionError && error.option === 'minutes',
    );
    assert.throws(
      () => runHandoffStudy({ configs: [{ name: 'X', productionRate: 1.5, reviewRate: 1, burstProbability: 0 }] }),
      (error: unknown) => error instanceof StudyOptionError && error.option === 'configs[0].productionRate',
    );
    assert.throws(
      () => runHandoffStudy({ configs: [HANDOFF_CONFIGS[0] as HandoffConfig, HANDOFF_CONFIGS[0] as HandoffConfig] }),
      StudyOptionError,
    );
  });
});

describe('renderHandoffMarkdown', () => {
  it('has one table row per configuration and variant, and links the figure', () => {
    const markdown = renderHandoffMarkdown(runHandoffStudy(), { figure: 'out/handoff-depth.svg' });
    const rows = markdown.split('\n').filter((line) => /^\| [A-D] \| (simple|protocol) \|/.test(line));
    assert.equal(rows.length, 8);
    assert.match(markdown, /!\[Review queue depth per minute\]\(out\/handoff-depth\.svg\)/);
  });
});

describe('renderHandoffFigure', () => {
  it('renders one SVG, the same for the same study', async () => {
    const study = runHandoffStudy({ minutes: 60 });
    const svg = await renderHandoffFigure(study);
    assert.match(svg, /^<svg[\s\S]*<\/svg>\n$/);
    for (const name of ['A', 'B', 'C', 'D']) assert.ok(svg.includes(`Configuration ${name}`));
    assert.equal(await renderHandoffFigure(study), svg);
  });
});
