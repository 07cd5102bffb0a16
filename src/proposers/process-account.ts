import type { OutputTail, ProposerAccount } from '../core/proposer-account.js';
import type { ProcessResult } from '../process/run-process.js';
import { STREAM_TAIL_BYTES, tailOf } from './output-tail.js';

/**
 * The account of a proposer program's run: how it ended (exit code, signal, why the runtime ended it, why
 * it could not start), how long it took, and the last {@link STREAM_TAIL_BYTES} bytes of its stdout and of
 * its stderr, with an agent's `transcript` when it wrote one.
 */
export function processAccount({
  kind,
  result,
  transcript,
}: {
  kind: string;
  result: ProcessResult;
  transcript?: OutputTail | undefined;
}): ProposerAccount {
  return {
    kind,
    ...(result.exitCode === null ? {} : { exitCode: result.exitCode }),
    ...(result.signal === null ? {} : { signal: result.signal }),
    ...(result.killed === undefined ? {} : { killed: result.killed }),
    ...(result.spawnError === undefined ? {} : { spawnError: result.spawnError }),
    durationMs: Math.round(result.durationMs),
    stdout: tailOf(result.stdout, STREAM_TAIL_BYTES),
    stderr: tailOf(result.stderr, STREAM_TAIL_BYTES),
    ...(transcript === undefined ? {} : { transcript }),
  };
}
