import { briefBaseline, type BaselineFile, type BaselineSource } from './brief-baseline.js';
import type { Finding, FindingLocation } from './finding.js';
import type { Candidate } from './candidate.js';
import type { Verification } from './outcome.js';
import { accountText, type ProposerAccount } from './proposer-account.js';
import { DEFAULT_STRIP_PATTERNS, stripThinking, type Stripped } from './strip-thinking.js';

/** A failing (or erroring) finding as a brief lists it. */
export interface BriefFinding {
  readonly check: string;
  readonly status: 'fail' | 'error';
  readonly reasonCodes: readonly string[];
  readonly message: string;
  readonly location?: FindingLocation;
}

/** What a reviewer needs to decide on a run quickly; the raw trace stays in the ledger. */
export interface Brief {
  readonly runId: string;
  readonly task: string;
  /** The mission's task type, which filter rules and the queue page's filter match on. */
  readonly taskType?: string;
  readonly priority: number;
  /**
   * The final candidate's changed files and value, thinking-token leakage stripped (see `stripped`), and
   * `baseline`: each changed path as the run's snapshot held it, as it was (briefs of runs without a
   * workspace, and older briefs, have none).
   */
  readonly finalOutput: {
    readonly files: Readonly<Record<string, string | null>>;
    readonly value?: unknown;
    readonly baseline?: Readonly<Record<string, BaselineFile>>;
  };
  readonly cutoffReason: string;
  /**
   * The last failing or erroring finding, as `check: message`; when the last attempt's proposer ran a program,
   * followed by its account: how it ended and the last lines of its stderr and transcript.
   */
  readonly lastError?: string;
  readonly attempts: number;
  readonly verification: Verification;
  /** The failing and erroring findings of the last check set, in check order (at most {@link BRIEF_FINDINGS}). */
  readonly failing?: readonly BriefFinding[];
  /** Failing findings left out of `failing` for its length. */
  readonly failingOmitted?: number;
  /** What was stripped from the final output, per pattern; absent when nothing was. */
  readonly stripped?: readonly Stripped[];
}

/** Failing findings a brief lists, and the characters of each message it keeps. */
export const BRIEF_FINDINGS = 20;
const MESSAGE_CHARS = 2000;

/** The message of the last failing or erroring finding, for the brief. */
export function lastError(findings: readonly Finding[]): string | undefined {
  const bad = findings.filter((item) => item.status === 'fail' || item.status === 'error').at(-1);
  return bad === undefined ? undefined : `${bad.check}: ${bad.message}`;
}

function briefFinding({ check, status, reasonCodes, message, location }: Finding): BriefFinding {
  return {
    check,
    status: status as BriefFinding['status'],
    reasonCodes,
    message: message.length <= MESSAGE_CHARS ? message : `${message.slice(0, MESSAGE_CHARS)}…`,
    ...(location === undefined ? {} : { location }),
  };
}

/**
 * The brief of a sealed run: the last error (with the last attempt's proposer `account`, when it has one)
 * and the failing findings of its last check set, and its final output with thinking-token leakage
 * (`stripPatterns`, default {@link DEFAULT_STRIP_PATTERNS}) stripped and recorded as `stripped`. With
 * `baseline` (the run's snapshot), each changed path's content before the run is kept next to it, within
 * the caps of {@link briefBaseline}.
 */
export function makeBrief(
  fields: Omit<Brief, 'finalOutput' | 'lastError' | 'failing' | 'failingOmitted' | 'stripped'> & {
    candidate: Candidate;
    findings: readonly Finding[];
    account?: ProposerAccount | undefined;
    stripPatterns?: readonly string[] | undefined;
    baseline?: BaselineSource | undefined;
  },
): Brief {
  const { candidate, findings, account, stripPatterns = DEFAULT_STRIP_PATTERNS, baseline, ...rest } = fields;
  const bad = findings.filter((item) => item.status === 'fail' || item.status === 'error');
  const last = lastError(findings);
  // The proposer's own account is told next to the error it explains, never in place of one.
  const error = last === undefined || account === undefined ? last : `${last}\n\n${accountText(account)}`;
  const counts = new Map<string, number>();
  const files = stripThinking(candidate.files, stripPatterns, counts);
  const value = stripThinking(candidate.value, stripPatterns, counts);
  return {
    ...rest,
    ...(error === undefined ? {} : { lastError: error }),
    finalOutput: {
      files,
      ...(value === undefined ? {} : { value }),
      ...(baseline === undefined ? {} : { baseline: briefBaseline(Object.keys(candidate.files), baseline) }),
    },
    ...(bad.length === 0 ? {} : { failing: bad.slice(0, BRIEF_FINDINGS).map(briefFinding) }),
    ...(bad.length > BRIEF_FINDINGS ? { failingOmitted: bad.length - BRIEF_FINDINGS } : {}),
    ...(counts.size === 0 ? {} : { stripped: [...counts].map(([pattern, count]) => ({ pattern, count })) }),
  };
}
