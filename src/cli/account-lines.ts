import { meterLine } from '../core/model-call.js';
import { accountStatus, lastLines, proposerNoun, tailSize, type ProposerAccount } from '../core/proposer-account.js';

/** Lines of stderr and of the transcript `ledger show` prints per attempt; the record keeps the whole tails. */
export const SHOWN_LINES = 5;

/**
 * The proposer's account of one attempt, for `ledger show`: how its program ended and how long it ran, how
 * much of each stream was kept, its model calls through a meter, and the last lines of its stderr and of its
 * transcript. The lines hold the program's own text: the caller spells out what could act on a terminal
 * (`clean`), line by line.
 */
export function accountLines(account: ProposerAccount, indent: string): string[] {
  const streams = [`stdout ${tailSize(account.stdout)}`, `stderr ${tailSize(account.stderr)}`];
  if (account.transcript !== undefined) streams.push(`transcript ${tailSize(account.transcript)}`);
  const lines = [`${indent}${proposerNoun(account.kind)}: ${accountStatus(account)} · ${streams.join(' · ')}`];
  if (account.meter !== undefined) lines.push(`${indent}  ${meterLine(account.meter)}`);
  for (const [label, tail] of [
    ['stderr', account.stderr],
    ['transcript', account.transcript],
  ] as const)
    for (const line of lastLines(tail, SHOWN_LINES)) lines.push(`${indent}  ${label} │ ${line}`);
  return lines;
}
