import type { Finding, FindingLocation } from '../core/finding.js';
import { clean } from '../core/untrusted-text.js';

// What the agent reads of findings. Test output, file names and test names are untrusted: every string is
// spelled out by the one escaping module (newlines kept, so a failure's message stays readable), and
// messages and lists are cut, so one noisy test cannot flood the agent's context.

/** Characters of one message the agent gets; the rest is cut, with a note of how much. */
export const MESSAGE_CAP = 2000;

/** Characters of a message in a short finding: once half of an answer's room is spent, or a full one does not fit. */
export const SHORT_MESSAGE_CAP = 300;

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
  /** How many findings said exactly this, when more than one did. */
  readonly count?: number;
}

/** `text` safe for the agent: each line spelled out by `clean`, and at most `cap` characters of it. */
export function agentText(text: string, cap = MESSAGE_CAP): string {
  const kept = text.length > cap ? text.slice(0, cap) : text;
  const shown = kept.split('\n').map(clean).join('\n');
  return text.length > cap ? `${shown}… (${text.length - cap} more characters cut)` : shown;
}

function agentLocation({ file, line, test }: FindingLocation, cap: number): FindingLocation {
  return {
    ...(file === undefined ? {} : { file: agentText(file, cap) }),
    ...(line === undefined ? {} : { line }),
    ...(test === undefined ? {} : { test: agentText(test, cap) }),
  };
}

/** One finding made safe: in full, or short (a shorter message, fewer and shorter reason codes). */
function agentFinding(finding: Finding, short: boolean): AgentFinding {
  const cap = short ? 100 : 300;
  return {
    check: agentText(finding.check, 200),
    stage: finding.stage,
    tier: finding.tier,
    status: finding.status,
    reasonCodes: finding.reasonCodes.slice(0, short ? 5 : 20).map((code) => agentText(code, cap)),
    message: agentText(finding.message, short ? SHORT_MESSAGE_CAP : MESSAGE_CAP),
    ...(finding.location === undefined ? {} : { location: agentLocation(finding.location, short ? 200 : 500) }),
    ...(finding.skipReason === undefined ? {} : { skipReason: agentText(finding.skipReason, cap) }),
    ...(finding.score === undefined ? {} : { score: finding.score }),
  };
}

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * The findings an answer lists in at most `bytes` of JSON: the failing and erroring ones first, then the
 * rest; each distinct finding once (`count` says how many said exactly the same); in full until half of
 * `bytes` is spent or a full one no longer fits, then short; `omitted` counts the findings left out.
 */
export function agentFindings(findings: readonly Finding[], { bytes }: { bytes: number }): { findings: AgentFinding[]; omitted: number } {
  const bad = (finding: Finding): boolean => finding.status === 'fail' || finding.status === 'error';
  const distinct = new Map<string, { finding: Finding; count: number }>();
  for (const finding of [...findings.filter(bad), ...findings.filter((item) => !bad(item))]) {
    const key = JSON.stringify(agentFinding(finding, false));
    const seen = distinct.get(key);
    if (seen === undefined) distinct.set(key, { finding, count: 1 });
    else seen.count += 1;
  }
  const listed: AgentFinding[] = [];
  let used = 2;
  let omitted = 0;
  for (const { finding, count } of distinct.values()) {
    // In order: once one finding is left out, so is every one after it.
    if (omitted > 0) {
      omitted += count;
      continue;
    }
    const shown = (short: boolean): AgentFinding => ({ ...agentFinding(finding, short), ...(count > 1 ? { count } : {}) });
    let item = shown(used > bytes / 2);
    if (used + bytesOf(item) + 1 > bytes) item = shown(true);
    const size = bytesOf(item) + 1;
    if (used + size > bytes) omitted += count;
    else {
      listed.push(item);
      used += size;
    }
  }
  return { findings: listed, omitted };
}
