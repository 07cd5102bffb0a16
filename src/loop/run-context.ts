import type { InventoryChannel } from '../core/test-inventory.js';
import type { CheckContext } from '../core/check.js';
import type { LongTimeout } from '../process/long-timeout.js';
import type { TraceSpan } from '../telemetry/trace-span.js';
import { candidateChannel } from './inventories.js';
import type { LoopState } from './loop-state.js';
import type { PreparedRun } from './prepare-run.js';
import type { RunRecorder } from '../run/run-recorder.js';
import type { RunMissionOptions } from './run-options.js';

/** What every step of a run reads and never changes: the prepared run, its recorder, clock, signal and span. */
export interface RunContext extends PreparedRun {
  readonly options: RunMissionOptions;
  readonly recorder: RunRecorder;
  readonly now: () => number;
  /** The run's span (a no-op one when tracing is off). */
  readonly span: TraceSpan;
  /** Fires when the wall-clock budget runs out or the caller aborts. */
  readonly signal: AbortSignal;
  /** Fires when the wall-clock budget runs out. */
  readonly wallClock: AbortSignal;
  readonly timer: LongTimeout | undefined;
}

/** The context a check runs in for attempt `number` (0: the baseline), reporting test inventories to `inventory`. */
export function checkContext(
  context: RunContext,
  state: LoopState,
  number: number,
  inventory: InventoryChannel = candidateChannel(state.inventories),
): Omit<CheckContext, 'candidate' | 'dir'> {
  return {
    goal: context.mission.goal,
    attempt: number,
    signal: context.signal,
    inventory,
    ...(context.sandbox === undefined ? {} : { sandbox: context.sandbox.checks }),
  };
}
