import type { ReportProblem } from './test-result.js';

/** What a TAP stream says about itself, read at its top level (indented subtests have plans of their own). */
export interface TapStream {
  /** The count of every top-level plan line (`1..N`), in order. */
  readonly plans: number[];
  /** Top-level test points (`ok` / `not ok` lines). */
  points: number;
  /** The reason after `Bail out!`, when the stream has one. */
  bailOut?: string;
}

/**
 * What is wrong with a TAP stream as a whole. Its one top-level plan must count its top-level test points
 * (node and node-tap count top-level tests, their subtests are indented under plans of their own; tape's
 * flat stream counts every assertion), `1..0` with no points included. A stream without a plan was cut
 * off or never finished: a test process that exits early leaves no plan behind. A bail-out abandoned the
 * run: the tests after it never reported, so its plan is not compared.
 *
 * @example
 * tapProblems({ plans: [3], points: 2 });
 * // [{ code: 'report.plan_mismatch', message: 'the plan (1..3) promises 3 top-level tests but the stream has 2' }]
 */
export function tapProblems({ plans, points, bailOut }: TapStream): ReportProblem[] {
  if (bailOut !== undefined)
    return [{ code: 'report.bail_out', message: `the test runner bailed out${bailOut === '' ? '' : `: ${bailOut}`}` }];
  const [plan, ...more] = plans;
  if (plan === undefined)
    return [{ code: 'report.no_plan', message: `the TAP stream has no plan (1..N) after ${points} top-level tests: it ended early` }];
  if (more.length > 0)
    return [
      {
        code: 'report.plan_repeated',
        message: `the TAP stream has ${plans.length} top-level plans (${plans.map((count) => `1..${count}`).join(', ')})`,
      },
    ];
  if (plan !== points)
    return [
      { code: 'report.plan_mismatch', message: `the plan (1..${plan}) promises ${plan} top-level tests but the stream has ${points}` },
    ];
  return [];
}
