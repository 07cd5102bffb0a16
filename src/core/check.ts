import type { Candidate } from './candidate.js';
import type { Finding, FindingStatus, Stage, Tier } from './finding.js';
import type { InventoryChannel } from './test-inventory.js';

/** What a check gets to look at. */
export interface CheckContext {
  /** Isolated copy of baseline + candidate; absent for missions without a workspace. */
  readonly dir?: string;
  readonly candidate: Candidate;
  readonly goal: string;
  readonly attempt: number;
  readonly signal: AbortSignal;
  /** Run programs in this OS sandbox (the mission's `sandbox`), with only `dir` writable. */
  readonly sandbox?: { readonly kind: 'bwrap'; readonly network: boolean };
  /** The baseline's test inventories, and where a test-runner check hands in its own (absent outside a run). */
  readonly inventory?: InventoryChannel;
}

/**
 * A validator. Implement this to add a custom check; `run` returns at least one finding and should
 * never throw (a thrown error becomes an `error` finding).
 */
export interface Check {
  readonly name: string;
  readonly stage: Stage;
  readonly tier: Tier;
  readonly required: boolean;
  /**
   * A shadow check runs once, at the seal, on the candidate the loop stopped on, and is recorded in the
   * seal; it never influences the loop, the judge or acceptance (a held-out oracle for true reach).
   * @default false
   */
  readonly shadow?: boolean;
  /**
   * Globs (picomatch, relative to the check's copy) of snapshot or candidate paths the check itself
   * rewrites, such as a tracked report (a test runner's relative `reportFile` is one of its outputs) or a snapshot file a test updates. Any other such path that changes
   * while the check runs voids its findings (`check.inputs_changed`, docs/architecture.md#isolation);
   * files the check creates are never inputs and need no entry.
   * @default []
   * @example ['coverage/**', 'test/__snapshots__/*.snap']
   */
  readonly outputs?: readonly string[];
  /**
   * Whether the check reads its copy's files. One that looks only at the candidate (its paths, its text)
   * says false: nothing it could see there can change, so the copy is not compared after it (the
   * comparison after the next check that reads files covers the time since the reset all the same).
   * @default true
   */
  readonly readsCopy?: boolean;
  run(context: CheckContext): Promise<readonly Finding[]>;
}

type FindingFields = Omit<Finding, 'check' | 'stage' | 'tier' | 'status' | 'reasonCodes' | 'message'>;

/** Builds a finding attributed to `check`. */
export function finding(
  check: Pick<Check, 'name' | 'stage' | 'tier'>,
  status: FindingStatus,
  reasonCodes: readonly string[],
  message: string,
  fields: FindingFields = {},
): Finding {
  return { check: check.name, stage: check.stage, tier: check.tier, status, reasonCodes, message, ...fields };
}

/** The `sandbox` option of `runProcess` for a check's program: only its copy (`dir`) is writable. */
export function checkSandbox({ dir, sandbox }: Pick<CheckContext, 'dir' | 'sandbox'>): {
  sandbox?: { kind: 'bwrap'; writable: string[]; network: boolean };
} {
  return sandbox === undefined
    ? {}
    : { sandbox: { kind: sandbox.kind, writable: dir === undefined ? [] : [dir], network: sandbox.network } };
}
