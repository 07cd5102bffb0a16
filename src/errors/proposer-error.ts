import type { ProposerAccount } from '../core/proposer-account.js';
import { RedlineError } from './redline-error.js';

/**
 * A proposer did not produce a usable candidate. The runtime records it as an `error` finding on the
 * attempt; it never crashes the run.
 */
export class ProposerError extends RedlineError {
  /** Output the proposer produced, cut to a readable length, if any. */
  readonly output?: string;
  /** What the failed attempt spent, when the proposer reported it anyway: budgets are charged for it. */
  readonly usage?: unknown;
  /** How the proposer's program ran (status, time, the tails of its output), when it ran one: kept in the attempt record. */
  readonly account?: ProposerAccount;

  constructor({
    code,
    message,
    output,
    usage,
    account,
    cause,
  }: {
    code: string;
    message: string;
    output?: string;
    usage?: unknown;
    account?: ProposerAccount;
    cause?: unknown;
  }) {
    super({ code, message, cause });
    this.name = 'ProposerError';
    if (output !== undefined) this.output = output.length > 2000 ? `${output.slice(0, 2000)}…` : output;
    if (usage !== undefined) this.usage = usage;
    if (account !== undefined) this.account = account;
  }
}
