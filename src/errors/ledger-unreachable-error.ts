import { RedlineError } from './redline-error.js';

/** No connection could be made to the PostgreSQL server of a ledger (or review queue). */
export class LedgerUnreachableError extends RedlineError {
  /** The server as the connection names it: `host:port/database`, never the password. */
  readonly server: string;
  /** What the driver said, on one line. */
  readonly reason: string;

  constructor({ server, reason, cause }: { server: string; reason: string; cause?: unknown }) {
    super({ code: 'ledger.unreachable', message: `cannot connect to PostgreSQL at ${server}: ${reason}`, cause });
    this.name = 'LedgerUnreachableError';
    this.server = server;
    this.reason = reason;
  }
}
