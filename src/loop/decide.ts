import { evaluatePolicy, type StopVerdict } from '../guards/guard.js';
import type { WorkingState } from '../state/working-state.js';
import type { TraceSpan } from '../telemetry/trace-span.js';
import { refines, type Ending } from '../run/ending.js';
import { ended, judgeState } from '../run/judge-state.js';
import type { LoopState } from './loop-state.js';
import type { RunContext } from './run-context.js';

/** The first verdict of the guard stack on the working state, if one stops the run. */
export function policyVerdict(context: RunContext, working: WorkingState): StopVerdict | undefined {
  return evaluatePolicy(context.guards, {
    recent: working.recent,
    counters: working.counters,
    budgets: context.limits,
    progressWindow: context.mission.progressWindow,
    taskType: context.mission.taskType,
  });
}

/** Asks the judge on the loop's state and records the decision; returns the run's ending, or undefined when the decision refines. */
export async function decide(
  context: RunContext,
  { working }: LoopState,
  verdict: StopVerdict | undefined,
  trace: TraceSpan = context.span,
): Promise<Ending | undefined> {
  const decided = await judgeState(context, working, verdict, trace);
  return refines(decided) ? undefined : ended(context, decided);
}
