import type { Finding } from '../core/finding.js';
import type { StopVerdict } from '../guards/guard.js';
import type { Candidate } from '../core/candidate.js';
import type { Mission } from '../mission/mission.js';
import type { Acceptance } from '../core/acceptance.js';

/** The transitions a judge may choose. */
export type Transition = 'retry' | 'accept' | 'noop' | 'block' | 'fail';

export const TRANSITIONS: readonly Transition[] = ['retry', 'accept', 'noop', 'block', 'fail'];

/** A judge's choice. `cites` names findings as `check` or `check#reasonCode`. */
export interface Decision {
  readonly transition: Transition;
  /** Stable code for why; it becomes the run's stop reason when the transition seals the run. */
  readonly reason: string;
  readonly cites?: readonly string[];
  readonly detail?: string;
}

/** The complete evidence a judge decides from. */
export interface Evidence {
  readonly mission: Mission;
  /** 0 for the baseline check before any proposal. */
  readonly attempt: number;
  readonly candidate: Candidate;
  readonly findings: readonly Finding[];
  /** The stop policy's verdict on this attempt, if a guard stopped. */
  readonly verdict?: StopVerdict;
  readonly acceptance: Acceptance;
}

/** What the runtime passes a judge besides the evidence. */
export interface DecideOptions {
  /** Aborted when the run stops (its caller, the wall-clock budget): a judge that waits should stop waiting. */
  readonly signal: AbortSignal;
  /** The run being judged (the runtime always gives it; a judge called by hand may not). */
  readonly runId?: string;
}

/**
 * Chooses the transition. May return anything: the runtime validates the decision before applying
 * it, and records and refuses a bad one.
 */
export interface Judge {
  readonly name: string;
  decide(evidence: Evidence, options: DecideOptions): unknown;
}

/** Wraps a function as a judge. */
export function functionJudge(decide: Judge['decide'], { name = 'function' }: { name?: string } = {}): Judge {
  return { name, decide };
}
