import type { ProcessResult } from '../process/run-process.js';
import { finding, type Check } from './check.js';
import type { Finding } from './finding.js';

/** The `error` finding for a process the runtime had to end or could not start, if any. */
export function processErrorFinding(
  check: Pick<Check, 'name' | 'stage' | 'tier'>,
  result: ProcessResult,
  timeoutMs: number,
): Finding | undefined {
  if (result.spawnError !== undefined) {
    return finding(check, 'error', ['process.spawn_failed'], `could not start the command: ${result.spawnError}`);
  }
  switch (result.killed) {
    case 'timeout':
      return finding(check, 'error', ['process.timeout'], `killed after the ${timeoutMs} ms timeout`);
    case 'output_cap':
      return finding(check, 'error', ['process.output_cap'], 'killed: output exceeded the cap');
    case 'aborted':
      return finding(check, 'error', ['process.aborted'], 'killed: the run was stopped');
    default:
      return result.signal === null ? undefined : finding(check, 'error', ['process.crashed'], `ended by signal ${result.signal}`);
  }
}

/** The last few lines of a process's output, for a finding's message. */
export function tail(text: string, lines = 5): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
