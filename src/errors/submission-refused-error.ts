import { RedlineError } from './redline-error.js';

/** A worker refuses to run a submission (its signature, or the bounds of its workspace); it is never run. */
export class SubmissionRefusedError extends RedlineError {
  readonly submission: string;

  constructor(submission: string, message: string) {
    super({ code: 'worker.submission_refused', message });
    this.name = 'SubmissionRefusedError';
    this.submission = submission;
  }
}
