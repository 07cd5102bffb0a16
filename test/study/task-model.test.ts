import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normals, sfc32 } from '../../src/study/prng.js';
import { generateTasks, observe, TASK_TYPES, trueQuality } from '../../src/study/task-model.js';

describe('task model of the stop-rules study', () => {
  it('q(t) = 1 − (1 − s0)·exp(−r·(t − 1)): starts at s0, rises, and saturates towards 1', () => {
    assert.equal(trueQuality(0.6, 1, 1), 0.6);
    assert.equal(trueQuality(0.4, 0.5, 3), 1 - 0.6 * Math.exp(-1));
    for (const [s0, r] of [
      [0.25, 0.2],
      [0.5, 0.55],
      [0.75, 1.2],
    ] as const) {
      for (let t = 1; t < 12; t += 1) assert.ok(trueQuality(s0, r, t + 1) > trueQuality(s0, r, t));
      assert.ok(trueQuality(s0, r, 200) > 0.999);
    }
  });

  it('draws tasksPerType tasks of each type, with s0 and r inside the type ranges and q per the formula', () => {
    const tasks = generateTasks({ tasksPerType: 50, cap: 8, seed: 3 });
    assert.equal(tasks.length, 150);
    for (const [type, ranges] of Object.entries(TASK_TYPES)) {
      const ofType = tasks.filter((task) => task.type === type);
      assert.equal(ofType.length, 50);
      for (const { s0, r, quality, noise, secondNoise } of ofType) {
        assert.ok(s0 >= ranges.s0[0] && s0 <= ranges.s0[1], `${type} s0 ${s0}`);
        assert.ok(r >= ranges.r[0] && r <= ranges.r[1], `${type} r ${r}`);
        assert.deepEqual([quality.length, noise.length, secondNoise.length], [8, 8, 8]);
        quality.forEach((q, index) => assert.equal(q, trueQuality(s0, r, index + 1)));
      }
    }
  });

  it('shuffles the types together, and is deterministic per seed', () => {
    const tasks = generateTasks({ tasksPerType: 50, cap: 8, seed: 3 });
    const firstHalf = new Set(tasks.slice(0, 75).map((task) => task.type));
    assert.equal(firstHalf.size, 3);
    assert.deepEqual(generateTasks({ tasksPerType: 50, cap: 8, seed: 3 }), tasks);
    assert.notDeepEqual(generateTasks({ tasksPerType: 50, cap: 8, seed: 4 }), tasks);
  });

  it('takes its randomness from the injected factory', () => {
    const calls: number[] = [];
    const constant = (seed: number) => {
      calls.push(seed);
      return () => 0.5;
    };
    const tasks = generateTasks({ tasksPerType: 2, cap: 6, seed: 1, random: constant });
    assert.equal(calls.length, 3, 'one stream for the tasks and one per judge');
    assert.ok(tasks.every((task) => task.s0 === (TASK_TYPES[task.type].s0[0] + TASK_TYPES[task.type].s0[1]) / 2));
  });

  it('observes clip(q + σ·z, 0, 1), with the same draw z at every σ', () => {
    assert.equal(observe(0.7, 1, 0.1), 0.7 + 0.1);
    assert.equal(observe(0.95, 2, 0.1), 1);
    assert.equal(observe(0.1, -3, 0.1), 0);
    assert.equal(observe(0.7, 1.3, 0), 0.7);
  });

  it('draws standard-normal noise: mean ≈ 0, sd ≈ 1, deterministic per seed', () => {
    const draw = normals(sfc32(11));
    const values = Array.from({ length: 40_000 }, draw);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const sd = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (values.length - 1));
    assert.ok(Math.abs(mean) < 0.03, `mean ${mean}`);
    assert.ok(Math.abs(sd - 1) < 0.03, `sd ${sd}`);
    assert.deepEqual(Array.from({ length: 5 }, normals(sfc32(11))), values.slice(0, 5));
    const uniform = sfc32(5);
    for (let i = 0; i < 1000; i += 1) {
      const value = uniform();
      assert.ok(value >= 0 && value < 1);
    }
  });
});
