import { AdaptivePriors } from '../guards/adaptive-priors.js';
import type { Ledger, RunRecord } from '../ledger/ledger.js';
import { priorsFailure } from '../ledger/priors.js';
import { recordsOf } from '../ledger/run-records.js';

/** What the ledger's finished runs of a task type taught `adaptive`. */
export async function loadPriors(ledger: Ledger, taskType: string): Promise<AdaptivePriors> {
  const entry = await ledger.priors(taskType);
  return AdaptivePriors.from(entry === undefined ? {} : { [taskType]: entry });
}

/** The observed score of each recorded attempt, by attempt index. */
export function recordedScores(records: readonly RunRecord[]): (number | undefined)[] {
  const scores: (number | undefined)[] = [];
  for (const { data } of recordsOf(records, 'attempt')) scores[data.attempt - 1] = data.summary?.score;
  return scores;
}

/**
 * Teaches the ledger's adaptive priors a sealed run: the scores of attempts 1, 2, … up to the first
 * attempt without one. It runs after the seal, so it cannot change the sealed run, and nothing more is
 * recorded to it. A failure is not swallowed: it surfaces as a `LedgerError`, which the loop rethrows
 * like any ledger write it cannot make (the ledger is broken); the sealed run and its outcome stand in
 * the ledger.
 */
export async function learnFrom(ledger: Ledger, taskType: string, scores: readonly (number | undefined)[]): Promise<void> {
  const end = scores.findIndex((score) => score === undefined);
  const observed = (end === -1 ? scores : scores.slice(0, end)).filter((score) => score !== undefined);
  if (observed.length === 0) return;
  try {
    await ledger.learn(taskType, observed);
  } catch (error) {
    throw priorsFailure(error, taskType);
  }
}
