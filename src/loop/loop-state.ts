import type { Candidate } from '../core/candidate.js';
import type { HandoffPlan } from '../handoff/handoff.js';
import type { StepContext } from '../state/step.js';
import type { WorkingState } from '../state/working-state.js';
import type { RecordedDecision } from '../run/ending.js';
import type { BaselineInventories } from './inventories.js';

/**
 * Where the loop stands, passed from step to step: the working state after the last step, the baseline's
 * test inventories and the scores this process observed.
 */
export interface LoopState {
  readonly working: WorkingState;
  /** What each test-runner check reported on the baseline: every candidate's report must still hold it. */
  readonly inventories: BaselineInventories;
  /** The observed score of each attempt this process ran, by attempt index (a resumed run's earlier ones are recorded). */
  readonly scores: readonly (number | undefined)[];
}

/** The attempt under way and its candidate (the proposal being checked, else the latest), when a step is cut off inside it. */
export interface UnderWay {
  readonly attempt: number;
  readonly candidate: Candidate;
}

/** What the last stored record of a run leaves to do. */
export type ResumeStep = 'baseline' | 'decide' | 'attempt' | { readonly apply: RecordedDecision };

/** Where a recovered run picks up (see `resume.ts`). */
export interface ResumePoint {
  readonly runId: string;
  /** Records already stored. */
  readonly seq: number;
  /** Checks the run started with, by name, in order: a resumed run must run the same plan. */
  readonly checkNames: readonly string[];
  /** The review queue's plan the run started with, if it had one. */
  readonly handoffPlan?: HandoffPlan;
  /** Whether the run started under review (a queue's plan, or the default route): its seal goes to the queue. */
  readonly underReview: boolean;
  /** The manifest hash of the workspace snapshot the run started with (runs recorded before snapshots: none). */
  readonly manifestHash?: string;
  /** The test inventories its baseline record holds (none before the baseline was checked). */
  readonly inventories?: BaselineInventories;
  /** The working state and the step left to do, rebuilt from the run's records by stepping over its attempts. */
  readonly restore: (context: StepContext) => { readonly state: WorkingState; readonly next: ResumeStep };
}
