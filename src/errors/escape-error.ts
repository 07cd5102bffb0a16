import { RedlineError } from './redline-error.js';

/** A write or removal inside a root would have left it (or was refused); nothing was written. */
export class EscapeError extends RedlineError {
  /** The path, relative to the root, that was refused. */
  readonly file: string;

  constructor(file: string, message: string) {
    super({ code: 'workspace.escape', message });
    this.name = 'EscapeError';
    this.file = file;
  }
}
