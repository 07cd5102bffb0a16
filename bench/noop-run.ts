// The no-op redline run that loop-overhead and tracing-overhead time: what the loop itself costs an attempt.
import { finding, type Check } from '../src/core/check.js';
import { MemoryLedger } from '../src/ledger/memory/memory-ledger.js';
import { runMission } from '../src/loop/run-mission.js';
import { defineMission } from '../src/mission/mission.js';
import { functionProposer } from '../src/proposers/function-proposer.js';

const noopCheck: Check = {
  name: 'noop',
  stage: 'fast',
  tier: 'demand',
  required: true,
  run: async () => [finding(noopCheck, 'fail', ['noop.fail'], 'no-op')],
};

/**
 * One run of `attempts` no-op attempts (a value flipping between two, a failing no-op check, no guards of the
 * mission's; the runtime's `noChange(2)` would end a run whose proposer returns the same value twice): its ms.
 */
export async function redlineRun(attempts: number): Promise<number> {
  const mission = defineMission({ id: 'bench', goal: 'no-op', budgets: { maxAttempts: attempts }, stopPolicy: { guards: [] } });
  let flip = false;
  const proposer = functionProposer(() => {
    flip = !flip;
    return { value: flip ? 'a' : 'b' };
  });
  const started = performance.now();
  const result = await runMission({ mission, proposer, checks: [noopCheck], ledger: new MemoryLedger() });
  const elapsed = performance.now() - started;
  if (result.attempts !== attempts) throw new Error(`redline ran ${result.attempts} attempts, expected ${attempts}`);
  return elapsed;
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
