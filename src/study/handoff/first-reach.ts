/**
 * The minute the attempt limit first stood at `limit` in a trajectory (`[0, initial]`, then
 * `[minute, limit]` at every change): 0 when it started there, null when it never got there.
 *
 * @example
 * firstReach([[0, 5], [10, 6], [12, 5]], 6) // 10
 */
export function firstReach(trajectory: readonly (readonly [number, number])[], limit: number): number | null {
  return trajectory.find(([, value]) => value === limit)?.[0] ?? null;
}
