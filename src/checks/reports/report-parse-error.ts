import { RedlineError } from '../../errors/redline-error.js';
import type { ReportFormat } from './test-result.js';

/** A test report that is not a report of the declared format, so no test result can be trusted. */
export class ReportParseError extends RedlineError {
  readonly format: ReportFormat;

  constructor({ format, message, cause }: { format: ReportFormat; message: string; cause?: unknown }) {
    super({ code: 'report.unparseable', message: `Cannot parse ${format} report: ${message}`, cause });
    this.name = 'ReportParseError';
    this.format = format;
  }
}
