import { ProposerError } from '../errors/proposer-error.js';
import type { ProcessResult } from '../process/run-process.js';

/** The proposer error for a program that could not start, was ended by the runtime or exited non-zero. */
export function processFailure(result: ProcessResult, timeoutMs: number, outputCap: number, who: 'proposer' | 'agent'): ProposerError | undefined {
  if (result.spawnError !== undefined) return new ProposerError({ code: 'proposer.spawn_failed', message: `could not start the ${who}: ${result.spawnError}` });
  if (result.killed === 'timeout') return new ProposerError({ code: 'proposer.timeout', message: `the ${who} ran past its ${timeoutMs} ms timeout and was killed` });
  if (result.killed === 'output_cap') return new ProposerError({ code: 'proposer.output_cap', message: `the ${who} wrote more than ${outputCap} bytes and was killed` });
  if (result.killed === 'aborted') return new ProposerError({ code: 'proposer.aborted', message: `the run stopped while the ${who} was running` });
  if (result.exitCode !== 0) return new ProposerError({ code: 'proposer.exit_nonzero', message: `the ${who} exited ${result.exitCode ?? `by signal ${result.signal}`}`, output: result.stderr });
  return undefined;
}
