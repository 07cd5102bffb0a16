import { RedlineError } from '../errors/redline-error.js';
import type { Sandbox } from './sandbox.js';

/** The requested OS sandbox cannot run on this machine; `message` names what is missing. */
export class SandboxUnavailableError extends RedlineError {
  readonly kind: Sandbox['kind'];

  constructor({ kind, problem }: { kind: Sandbox['kind']; problem: string }) {
    super({ code: 'sandbox_unavailable', message: problem });
    this.name = 'SandboxUnavailableError';
    this.kind = kind;
  }
}
