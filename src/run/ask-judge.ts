import type { Evidence, Judge } from '../judge/judge.js';
import { validateDecision } from '../judge/validate-decision.js';
import { Aborted, raceSignal } from './abort.js';
import type { RecordedDecision } from './ending.js';

/**
 * Asks the judge for a transition on the evidence, raced with the run's signal, and validates the answer
 * before anything applies it: a judge that throws, or answers what the runtime refuses, gives a rejection.
 * A stop verdict other than `complete` binds: a `retry` past it is recorded as overridden.
 * @throws {Aborted} when the run's signal fires first.
 */
export async function askJudge({
  judge,
  evidence,
  signal,
  runId,
}: {
  judge: Judge;
  evidence: Evidence;
  signal: AbortSignal;
  runId: string;
}): Promise<RecordedDecision> {
  let validated: ReturnType<typeof validateDecision>;
  try {
    validated = validateDecision(
      await raceSignal(
        Promise.resolve().then(() => judge.decide(evidence, { signal, runId })),
        signal,
      ),
      evidence,
    );
  } catch (error) {
    if (error instanceof Aborted) throw error;
    validated = {
      rejection: { code: 'decision.judge_failed', message: `the judge threw: ${(error as Error)?.message ?? String(error)}` },
    };
  }
  const { verdict } = evidence;
  const rejection = 'rejection' in validated ? validated.rejection : undefined;
  const decision = 'decision' in validated ? validated.decision : undefined;
  const overridden = decision?.transition === 'retry' && verdict !== undefined && verdict.outcome !== 'complete';
  return {
    ...(verdict === undefined ? {} : { verdict }),
    ...(decision === undefined ? {} : { decision }),
    ...(rejection === undefined ? {} : { rejection }),
    ...(overridden ? { overridden: true } : {}),
  };
}
