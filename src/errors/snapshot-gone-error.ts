import { RedlineError } from './redline-error.js';

/** A resumed run's baseline is gone: its snapshot was removed and the workspace no longer matches it. */
export class SnapshotGoneError extends RedlineError {
  constructor(message: string) {
    super({ code: 'workspace.snapshot_gone', message });
    this.name = 'SnapshotGoneError';
  }
}
