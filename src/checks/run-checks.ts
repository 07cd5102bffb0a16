import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { NO_TRACE, type TraceSpan } from '../telemetry/trace-span.js';
import { inCheckSpan } from './check-span.js';

function skipped(check: Check, skipReason: string): Finding {
  return finding(check, 'skipped', [`skipped:${skipReason.split(':')[0]}`], `not run: ${skipReason}`, { skipReason });
}

async function runOne(check: Check, context: CheckContext, now: () => number): Promise<readonly Finding[]> {
  const started = now();
  let findings: readonly Finding[];
  try {
    findings = await check.run(context);
    if (findings.length === 0) findings = [finding(check, 'error', ['check.no_findings'], 'the check returned no findings')];
  } catch (error) {
    findings = [finding(check, 'error', ['check.crashed'], `the check threw: ${(error as Error)?.message ?? String(error)}`)];
  }
  // Every finding of a check carries how long the whole check took.
  const durationMs = Math.round(now() - started);
  return findings.map((item) => ({ ...item, durationMs }));
}

/**
 * Runs the fast stage, then — only when every required fast check passed — the promotion stage.
 * Checks that cannot run get a `skipped` finding with the deterministic reason; the findings of a check
 * that ran carry its `durationMs`, by `now` (the run's clock, injectable like the rest of its time). Each
 * check that runs is a child span of `trace`.
 */
export async function runChecks(
  checks: readonly Check[],
  context: CheckContext,
  now: () => number = performance.now.bind(performance),
  trace: TraceSpan = NO_TRACE,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const check of checks.filter((item) => item.stage === 'fast')) {
    if (context.signal.aborted) findings.push(skipped(check, 'run_stopped'));
    else findings.push(...(await inCheckSpan(check, trace, () => runOne(check, context, now))));
  }
  const blocking = [
    ...new Set(
      findings
        .filter((item) => item.status !== 'pass' && checks.find((check) => check.name === item.check)?.required)
        .map((item) => item.check),
    ),
  ];
  for (const check of checks.filter((item) => item.stage === 'promotion')) {
    if (blocking.length > 0) findings.push(skipped(check, `fast_stage_failed: ${blocking.join(', ')}`));
    else if (context.signal.aborted) findings.push(skipped(check, 'run_stopped'));
    else findings.push(...(await inCheckSpan(check, trace, () => runOne(check, context, now))));
  }
  return findings;
}

/** Every check skipped for the same reason (for example after a failed proposal). */
export function skipAll(checks: readonly Check[], skipReason: string): Finding[] {
  return checks.map((check) => skipped(check, skipReason));
}
