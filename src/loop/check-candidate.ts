import picomatch from 'picomatch';
import type { Candidate } from '../core/candidate.js';
import type { Check, CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { SCOPE_CHECK } from '../checks/scope-check.js';
import { NO_TRACE, type TraceSpan } from '../telemetry/trace-span.js';
import type { CheckCopy, RunWorkspace } from '../workspace/run-workspace.js';
import type { InventoryChannel, TestInventory } from '../core/test-inventory.js';
import { raceSignal } from '../run/abort.js';
import { runChecks, skipAll } from '../checks/run-checks.js';
import { INPUTS_CHANGED } from '../checks/inputs-guard.js';
import { inCheckSpan } from '../checks/check-span.js';

/** The findings of a check set, and what resetting the check copy for it cost (with a workspace). */
export interface Checked {
  readonly findings: Finding[];
  /** The reset's report (`resetMs`, paths scanned, hashed, restored): recorded with the attempt. */
  readonly isolation?: Record<string, number>;
}

export interface CheckCandidateOptions {
  readonly checks: readonly Check[];
  readonly candidate: Candidate;
  /** The rest of the context every check gets. */
  readonly context: Omit<CheckContext, 'candidate' | 'dir'>;
  /** The run's snapshot and check copy; without a workspace, checks see the candidate alone. */
  readonly files?: RunWorkspace | undefined;
  /** The run's clock, for each check's `durationMs`. */
  readonly now?: () => number;
  /** The span each check's span is a child of (the attempt's). */
  readonly trace?: TraceSpan;
}

/**
 * Runs the check set on a candidate, raced with the run's signal. With a workspace the scope is checked
 * first, before any of the candidate is written anywhere (outside it, every other check is skipped); then
 * the check copy is reset to exactly snapshot + candidate and the checks run in it, each one void when
 * the copy's snapshot or candidate paths changed while it ran (see `inputsGuard`).
 * @throws {Aborted} when the run's signal fires first.
 */
export async function checkCandidate({
  checks,
  candidate,
  context,
  files,
  now,
  trace = NO_TRACE,
}: CheckCandidateOptions): Promise<Checked> {
  const full = { candidate, ...context };
  if (files === undefined) return { findings: await raceSignal(runChecks(checks, full, { now, trace }), context.signal) };
  const scope = checks.find((item) => item.name === SCOPE_CHECK);
  const scopeFindings = scope === undefined ? [] : await inCheckSpan(scope, trace, () => scope.run(full));
  if (scopeFindings.some((item) => item.status !== 'pass'))
    return {
      findings: [
        ...scopeFindings,
        ...skipAll(
          checks.filter((item) => item !== scope),
          'scope_violation',
        ),
      ],
    };
  // Not raced with the signal: a reset is bounded by the tree's size, and a stopped run disposes the copy after it.
  const resetStarted = performance.now();
  const declared = checks.flatMap((check) => check.outputs ?? []);
  const outputs = declared.length === 0 ? undefined : picomatch(declared, { dot: true });
  const copy = await files.checkCopy(candidate.files, outputs === undefined ? {} : { outputs });
  const isolation = { resetMs: Math.round(performance.now() - resetStarted), ...copy.report };
  // In a copy not verified, what the test-runner checks hand in is kept only if the set's result counts.
  const held = copy.verified || full.inventory === undefined ? undefined : heldChannel(full.inventory);
  const inCopy = (dir: string, changedInputs: CheckCopy['changedInputs'], inventory = full.inventory) =>
    runChecks(checks, { ...full, dir, ...(inventory === undefined ? {} : { inventory }) }, { now, trace, changedInputs });
  const findings = await raceSignal(inCopy(copy.dir, copy.changedInputs, held?.channel), context.signal);
  // A copy not verified may hold a path changed between the runs (its declared outputs were compared
  // before): the walk after a check finds it, and voids the check.
  const stale = !copy.verified && findings.some((item) => item.reasonCodes.includes(INPUTS_CHANGED));
  if (!stale) {
    held?.commit();
    files.checkSetEnded();
    return { findings, isolation };
  }
  // Every path is compared now (the walk after the checks): the reset undoes what changed, whenever it did.
  const again = await files.checkCopy(candidate.files, { verify: true });
  const rerun = await raceSignal(inCopy(again.dir, again.changedInputs), context.signal);
  files.checkSetEnded();
  return { findings: rerun, isolation: { ...isolation, rerun: 1, rerunRestored: again.report.restored } };
}

/** An inventory channel whose records reach `channel` only on `commit`. */
function heldChannel(channel: InventoryChannel): { readonly channel: InventoryChannel; commit(): void } {
  const records: [string, TestInventory][] = [];
  return {
    channel: { baseline: (check) => channel.baseline(check), record: (check, inventory) => void records.push([check, inventory]) },
    commit: () => {
      for (const [check, inventory] of records) channel.record(check, inventory);
    },
  };
}
