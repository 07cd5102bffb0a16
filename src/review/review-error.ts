import { RedlineError } from '../errors/redline-error.js';
import type { Verdict } from './types.js';

/**
 * The review queue refused a request: an unknown item or label, an item dropped or claimed by another
 * reviewer, or a verdict that contradicts the one already given. Nothing was written.
 */
export class ReviewError extends RedlineError {
  readonly itemId?: string;
  /** The verdict already given, when a conflicting one was refused. */
  readonly firstVerdict?: Verdict;

  constructor({
    code,
    message,
    itemId,
    firstVerdict,
    cause,
  }: {
    code: string;
    message: string;
    itemId?: string;
    firstVerdict?: Verdict;
    cause?: unknown;
  }) {
    super({ code, message, cause });
    this.name = 'ReviewError';
    if (itemId !== undefined) this.itemId = itemId;
    if (firstVerdict !== undefined) this.firstVerdict = firstVerdict;
  }
}
