import { rm } from 'node:fs/promises';
import path from 'node:path';
import { processTemporary } from '../process/process-temporary.js';

/** The environment variable that names a test-runner check's fresh report path for its command. */
export const REPORT_VARIABLE = 'REDLINE_REPORT';

/** The `reportFile` that reads the report from the fresh path in `$REDLINE_REPORT`, not from the check's copy. */
export const FRESH_REPORT = `$${REPORT_VARIABLE}`;

/**
 * Runs `use` with a fresh report path: a file that does not exist yet, in a directory made for this one
 * check run under the system's temp dir, outside the check's copy, so no candidate can plant a report there
 * and no earlier run can leave one. The directory is removed when `use` settles, and named after this
 * process, so recovery removes it when the process was killed first (`sweepProcessTemporaries`).
 */
export async function withFreshReport<T>(use: (report: { readonly file: string; readonly dir: string }) => Promise<T>): Promise<T> {
  const dir = processTemporary('report');
  try {
    return await use({ file: path.join(dir, 'report'), dir });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
