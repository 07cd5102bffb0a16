import type { Check } from '../core/check.js';
import type { Finding, FindingStatus } from '../core/finding.js';
import type { ChildSpan, TraceSpan } from '../telemetry/trace-span.js';

// A check's span (OpenTelemetry GenAI `execute_tool`) and what its findings set on it.

function checkSpan(check: Check): ChildSpan {
  return {
    name: `execute_tool ${check.name}`,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': check.name,
      'redline.check.name': check.name,
      'redline.check.stage': check.stage,
      'redline.check.tier': check.tier,
      'redline.check.required': check.required,
    },
  };
}

const SEVERITY: readonly FindingStatus[] = ['pass', 'skipped', 'fail', 'error'];

/** The worst status among a check's findings (`pass` for none). */
export function statusOf(findings: readonly Finding[]): FindingStatus {
  return findings.reduce<FindingStatus>(
    (worst, item) => (SEVERITY.indexOf(item.status) > SEVERITY.indexOf(worst) ? item.status : worst),
    'pass',
  );
}

/** What a check found, on its span: a check that could not do its work (`error`) fails the span. */
function traceCheckResult(span: TraceSpan, findings: readonly Finding[]): void {
  const status = statusOf(findings);
  span.set({
    'redline.check.status': status,
    'redline.check.duration_ms': findings[0]?.durationMs,
    'redline.findings.count': findings.length,
    'redline.reason_codes.count': reasonCodeCount(findings),
  });
  const failed = findings.find((item) => item.status === 'error');
  if (failed !== undefined) span.fail({ type: failed.reasonCodes[0] ?? 'check.error', message: failed.message });
}

/** Runs a check in its span (a child of `trace`), with what it found set on the span. */
export function inCheckSpan(check: Check, trace: TraceSpan, run: () => Promise<readonly Finding[]>): Promise<readonly Finding[]> {
  return trace.child(checkSpan(check), async (span) => {
    const findings = await run();
    if (span.recording) traceCheckResult(span, findings);
    return findings;
  });
}

/** How many reason codes the findings carry. */
export function reasonCodeCount(findings: readonly Finding[]): number {
  return findings.reduce((sum, item) => sum + item.reasonCodes.length, 0);
}
