const marker = Symbol.for('redline.error');

/** Base of every error redline throws on purpose; `code` is stable and safe to branch on. */
export class RedlineError extends Error {
  readonly [marker] = true;
  readonly code: string;

  constructor({ code, message, cause }: { code: string; message: string; cause?: unknown }) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'RedlineError';
    this.code = code;
  }

  static isInstance(error: unknown): error is RedlineError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
