import type { Baseline } from '../core/candidate.js';
import type { Check } from '../core/check.js';
import type { InventoryChannel } from '../core/test-inventory.js';
import type { BudgetLimits, Guard } from '../guards/guard.js';
import type { HandoffPlan } from '../handoff/handoff.js';
import type { Judge } from '../judge/judge.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Mission } from '../mission/mission.js';
import type { Proposer, ProposerWorkspace } from '../proposers/proposer.js';
import type { RunPlan } from '../run/run-plan.js';
import type { StepContext } from '../state/step.js';
import type { RunWorkspace } from '../workspace/run-workspace.js';
import type { CheckContext } from '../core/check.js';
import type { LongTimeout } from '../process/long-timeout.js';
import type { TraceSpan } from '../telemetry/trace-span.js';
import { candidateChannel } from './inventories.js';
import type { LoopState, ResumeStep } from './loop-state.js';
import type { sandboxOf } from './run-setup.js';
import type { RunRecorder } from '../run/run-recorder.js';
import type { RunMissionOptions } from './run-options.js';

/** Everything a run fixes before its first record: roles, checks, guards, budgets, snapshot and where it starts. */
export interface PreparedRun {
  readonly runId: string;
  readonly mission: Mission;
  readonly ledger: Ledger;
  readonly proposer: Proposer;
  readonly judge: Judge;
  /** Approvals already given, by name. */
  readonly approvals: readonly string[];
  /** The plan (mission + proposer identity) `run.started` records, and a new run's link, as admitted. */
  readonly runPlan: RunPlan;
  /** What a new run's `run.started` adds: its link and a forced same plan (a resumed run: nothing). */
  readonly admitted: Record<string, unknown>;
  /** The loop's checks; shadow checks run only at the seal. */
  readonly checks: readonly Check[];
  readonly shadowChecks: readonly Check[];
  /** The runtime's own guards, then the policy. */
  readonly guards: readonly Guard[];
  readonly stepContext: StepContext;
  readonly missionHash: string;
  readonly handoffPlan: HandoffPlan | undefined;
  /** Whether the seal hands the run to review: it has a handoff and started under it (see `startedUnderReview`). */
  readonly underReview: boolean;
  readonly limits: BudgetLimits;
  readonly sandbox: ReturnType<typeof sandboxOf>;
  /** The run's snapshot and copies; none without a workspace. */
  readonly files: RunWorkspace | undefined;
  readonly baseline: Baseline;
  readonly proposerWorkspace: ProposerWorkspace | undefined;
  /** When the run's clock started (a resumed run's goes on from the elapsed time it recorded). */
  readonly startedAt: number;
  readonly snapshotMs: number;
  /** Where the loop starts: a new run's initial state, or a resumed run's rebuilt from its records. */
  readonly start: { readonly state: LoopState; readonly next: ResumeStep };
  /** A resumed run: how many records it had. */
  readonly resumedFrom: number | undefined;
}

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
