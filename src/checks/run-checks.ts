import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import { NO_TRACE, type TraceSpan } from '../telemetry/trace-span.js';
import { inCheckSpan } from './check-span.js';
import { inputsGuard, type ChangedInputs } from './inputs-guard.js';

export interface RunChecksOptions {
  /**
   * The run's clock, for each check's `durationMs` (injectable like the rest of its time).
   * @default performance.now
   */
  readonly now?: (() => number) | undefined;
  /**
   * The span each check's span is a child of.
   * @default NO_TRACE
   */
  readonly trace?: TraceSpan;
  /**
   * Which paths of the check copy (`context.dir`) changed since it was reset: asked after each check,
   * whose findings are void when its inputs changed (see `inputsGuard`). Absent without a copy.
   */
  readonly changedInputs?: ChangedInputs;
}

type Judge = (check: Check, findings: readonly Finding[]) => Promise<readonly Finding[]>;

function skipped(check: Check, skipReason: string): Finding {
  return finding(check, 'skipped', [`skipped:${skipReason.split(':')[0]}`], `not run: ${skipReason}`, { skipReason });
}

async function runOne(check: Check, context: CheckContext, now: () => number, judge: Judge): Promise<readonly Finding[]> {
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
  return (await judge(check, findings)).map((item) => ({ ...item, durationMs }));
}

/**
 * Runs the fast stage, then — only when every required fast check passed — the promotion stage.
 * Checks that cannot run get a `skipped` finding with the deterministic reason; the findings of a check
 * that ran carry its `durationMs`. Each check that runs is a child span of `trace`. With `changedInputs`,
 * a check whose inputs changed while it ran gets one `check.inputs_changed` error instead of its findings.
 */
export async function runChecks(
  checks: readonly Check[],
  context: CheckContext,
  { now = performance.now.bind(performance), trace = NO_TRACE, changedInputs }: RunChecksOptions = {},
): Promise<Finding[]> {
  const judge: Judge = changedInputs === undefined ? async (_check, findings) => findings : inputsGuard(changedInputs);
  const run = (check: Check) => inCheckSpan(check, trace, () => runOne(check, context, now, judge));
  const findings: Finding[] = [];
  for (const check of checks.filter((item) => item.stage === 'fast')) {
    if (context.signal.aborted) findings.push(skipped(check, 'run_stopped'));
    else findings.push(...(await run(check)));
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
    else findings.push(...(await run(check)));
  }
  return findings;
}

/** Every check skipped for the same reason (for example after a failed proposal). */
export function skipAll(checks: readonly Check[], skipReason: string): Finding[] {
  return checks.map((check) => skipped(check, skipReason));
}
