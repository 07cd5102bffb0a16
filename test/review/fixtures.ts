import type { Brief } from '../../src/core/brief.js';
import type { ReviewQueueOptions } from '../../src/review/config.js';

/** A brief for `runId` with plausible fields; `overrides` replace any of them. */
export function brief(runId: string, overrides: Partial<Brief> = {}): Brief {
  return {
    runId,
    task: `fix the failing test of ${runId}`,
    priority: 0,
    finalOutput: {
      files: { 'src/a.ts': 'export const a = "naïve ✓";\n', 'src/old.ts': null },
      value: { answer: [1, 2.5, { nested: true }] },
    },
    cutoffReason: 'budget_attempts: 5 of 5 attempts used',
    lastError: 'tests: expected 2, got 3',
    attempts: 5,
    verification: 'unverified',
    ...overrides,
  };
}

/** A clock that moves only when told, and ids `id-1`, `id-2`, … in call order. */
export function testRuntime(start = 1_700_000_000_000): {
  now: () => number;
  advance(ms: number): void;
  options(extra?: ReviewQueueOptions): ReviewQueueOptions;
} {
  let time = start;
  let id = 0;
  const now = (): number => time;
  const generateId = (): string => `id-${++id}`;
  return {
    now,
    advance(ms) {
      time += ms;
    },
    options: (extra = {}) => ({ ...extra, _internal: { now, generateId } }),
  };
}
