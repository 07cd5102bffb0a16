/** Where a check ran: `fast` every attempt, `promotion` only once every required fast check passed. */
export type Stage = 'fast' | 'promotion';

/**
 * What a check can prove. Only `demand` may auto-complete a run; `format` is well-formedness;
 * `semantic` is a judge's opinion that ranks and stops but never verifies.
 */
export type Tier = 'format' | 'demand' | 'semantic';

export type FindingStatus = 'pass' | 'fail' | 'error' | 'skipped';

export interface FindingLocation {
  readonly file?: string | undefined;
  readonly line?: number | undefined;
  readonly test?: string | undefined;
}

/**
 * One piece of evidence. `reasonCodes` are normalized (no timestamps, temp paths or pids) so findings
 * of two attempts compare.
 */
export interface Finding {
  readonly check: string;
  readonly stage: Stage;
  readonly tier: Tier;
  readonly status: FindingStatus;
  readonly reasonCodes: readonly string[];
  readonly message: string;
  readonly location?: FindingLocation;
  readonly evidenceRef?: string;
  /** Deterministic reason a skipped check could not run. */
  readonly skipReason?: string;
  /** A semantic check's score in [0, 1]. */
  readonly score?: number;
  /** How long the check that made this finding ran, in whole milliseconds (every finding of the check carries it). */
  readonly durationMs?: number;
}
