import type { Finding } from '../checks/finding.js';
import type { Candidate } from './candidate.js';
import type { Verification } from './outcome.js';

/** What a reviewer needs to decide on a run quickly; the raw trace stays in the ledger. */
export interface Brief {
  readonly runId: string;
  readonly task: string;
  readonly priority: number;
  /** The final candidate's changed files and value. */
  readonly finalOutput: { readonly files: Readonly<Record<string, string | null>>; readonly value?: unknown };
  readonly cutoffReason: string;
  readonly lastError?: string;
  readonly attempts: number;
  readonly verification: Verification;
}

/** The message of the last failing or erroring finding, for the brief. */
export function lastError(findings: readonly Finding[]): string | undefined {
  const bad = findings.filter((item) => item.status === 'fail' || item.status === 'error').at(-1);
  return bad === undefined ? undefined : `${bad.check}: ${bad.message}`;
}

export function makeBrief(fields: Omit<Brief, 'finalOutput'> & { candidate: Candidate }): Brief {
  const { candidate, ...rest } = fields;
  return { ...rest, finalOutput: { files: candidate.files, ...(candidate.value === undefined ? {} : { value: candidate.value }) } };
}
