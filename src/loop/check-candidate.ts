import type { Candidate } from '../core/candidate.js';
import type { Check, CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { SCOPE_CHECK } from '../checks/scope-check.js';
import { NO_TRACE, type TraceSpan } from '../telemetry/trace-span.js';
import type { RunWorkspace } from '../workspace/run-workspace.js';
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
  const copy = await files.checkCopy(candidate.files);
  const isolation = { resetMs: Math.round(performance.now() - resetStarted), ...copy.report };
  const run = runChecks(checks, { ...full, dir: copy.dir }, { now, trace, changedInputs: copy.changedInputs });
  const findings = await raceSignal(run, context.signal);
  if (copy.verified || !findings.some((item) => item.reasonCodes.includes(INPUTS_CHANGED))) return { findings, isolation };
  // Every path is compared now (the walk after the checks): the reset undoes what changed, whenever it did.
  const again = await files.checkCopy(candidate.files, { verify: true });
  const rerun = runChecks(checks, { ...full, dir: again.dir }, { now, trace, changedInputs: again.changedInputs });
  return { findings: await raceSignal(rerun, context.signal), isolation: { ...isolation, rerun: 1 } };
}
