import { RedlineError } from './redline-error.js';

/** A command that only reads a ledger was pointed at a SQLite file that does not exist: it creates none. */
export class LedgerNotFoundError extends RedlineError {
  /** The path as given. */
  readonly path: string;

  constructor({ path }: { path: string }) {
    super({
      code: 'ledger.not_found',
      message: `no ledger at ${path}: the file does not exist (this command only reads a ledger and creates none; check --ledger or $REDLINE_LEDGER)`,
    });
    this.name = 'LedgerNotFoundError';
    this.path = path;
  }
}
