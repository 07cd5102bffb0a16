import type { Finding, FindingLocation } from '../core/finding.js';
import { clean } from '../core/untrusted-text.js';

// What the agent reads of findings. Test output, file names and test names are untrusted: every string is
// spelled out by the one escaping module (newlines kept, so a failure's message stays readable), and
// messages and lists are cut, so one noisy test cannot flood the agent's context.

/** Characters of one message the agent gets; the rest is cut, with a note of how much. */
export const MESSAGE_CAP = 2000;

/** Findings one answer lists, failing ones first. */
export const FINDINGS_CAP = 50;

/** A finding as the agent reads it. */
export interface AgentFinding {
  readonly check: string;
  readonly stage: Finding['stage'];
  readonly tier: Finding['tier'];
  readonly status: Finding['status'];
  readonly reasonCodes: readonly string[];
  readonly message: string;
  readonly location?: FindingLocation;
  readonly skipReason?: string;
  readonly score?: number;
}

/** `text` safe for the agent: each line spelled out by `clean`, and at most `cap` characters of it. */
export function agentText(text: string, cap = MESSAGE_CAP): string {
  const kept = text.length > cap ? text.slice(0, cap) : text;
  const shown = kept.split('\n').map(clean).join('\n');
  return text.length > cap ? `${shown}… (${text.length - cap} more characters cut)` : shown;
}

function agentLocation({ file, line, test }: FindingLocation): FindingLocation {
  return {
    ...(file === undefined ? {} : { file: agentText(file, 500) }),
    ...(line === undefined ? {} : { line }),
    ...(test === undefined ? {} : { test: agentText(test, 500) }),
  };
}

/** The failing and erroring findings first, then the rest, at most {@link FINDINGS_CAP}, each made safe. */
export function agentFindings(findings: readonly Finding[]): { findings: AgentFinding[]; omitted: number } {
  const bad = (finding: Finding): boolean => finding.status === 'fail' || finding.status === 'error';
  const ordered = [...findings.filter(bad), ...findings.filter((finding) => !bad(finding))];
  return {
    findings: ordered.slice(0, FINDINGS_CAP).map((finding) => ({
      check: agentText(finding.check, 200),
      stage: finding.stage,
      tier: finding.tier,
      status: finding.status,
      reasonCodes: finding.reasonCodes.slice(0, 20).map((code) => agentText(code, 300)),
      message: agentText(finding.message),
      ...(finding.location === undefined ? {} : { location: agentLocation(finding.location) }),
      ...(finding.skipReason === undefined ? {} : { skipReason: agentText(finding.skipReason, 300) }),
      ...(finding.score === undefined ? {} : { score: finding.score }),
    })),
    omitted: Math.max(0, ordered.length - FINDINGS_CAP),
  };
}
