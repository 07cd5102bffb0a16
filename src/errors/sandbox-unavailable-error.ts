import { RedlineError } from './redline-error.js';

/** The requested OS sandbox cannot run on this machine; `message` names what is missing. */
export class SandboxUnavailableError extends RedlineError {
  /** The sandbox asked for. */
  readonly kind: 'bwrap';

  constructor({ kind, problem }: { kind: 'bwrap'; problem: string }) {
    super({ code: 'sandbox.unavailable', message: problem });
    this.name = 'SandboxUnavailableError';
    this.kind = kind;
  }
}
