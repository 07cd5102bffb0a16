import { RedlineError } from './redline-error.js';

/** The ledger refused a write or could not be read. */
export class LedgerError extends RedlineError {
  /** The run concerned; `''` for what belongs to no run (the adaptive priors). */
  readonly runId: string;

  constructor({ code, message, runId, cause }: { code: string; message: string; runId: string; cause?: unknown }) {
    super({ code, message, cause });
    this.name = 'LedgerError';
    this.runId = runId;
  }
}
