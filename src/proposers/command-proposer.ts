import { ProposerError } from '../errors/proposer-error.js';
import { runProcess } from '../process/run-process.js';
import type { Proposal, Proposer } from './proposer.js';

export interface CommandProposerOptions {
  /** argv array, or a string run by `/bin/sh -c`. */
  readonly command: string | readonly string[];
  /** Working directory of the program. */
  readonly cwd: string;
  /** Per-attempt limit; the run's wall-clock budget applies as well. @default 600000 */
  readonly timeoutMs?: number;
  /** Bytes of stdout kept; more is a `proposer.output_cap` error. @default 4194304 */
  readonly outputCap?: number;
  readonly reportsTokens?: boolean;
  readonly reportsCost?: boolean;
}

/**
 * Runs any program that speaks `redline.proposer/1` (docs/proposer-protocol.md): one JSON request on
 * stdin, one JSON proposal on stdout.
 */
export function commandProposer({ command, cwd, timeoutMs = 600_000, outputCap = 4_194_304, reportsTokens = false, reportsCost = false }: CommandProposerOptions): Proposer {
  return {
    name: typeof command === 'string' ? command : command.join(' '),
    capabilities: { reportsTokens, reportsCost },
    async propose(request, { signal }) {
      const result = await runProcess({ command, cwd, input: JSON.stringify(request), timeoutMs, outputCap, signal });
      if (result.spawnError !== undefined) throw new ProposerError({ code: 'proposer.spawn_failed', message: `could not start the proposer: ${result.spawnError}` });
      if (result.killed === 'timeout') throw new ProposerError({ code: 'proposer.timeout', message: `the proposer ran past its ${timeoutMs} ms timeout and was killed` });
      if (result.killed === 'output_cap') throw new ProposerError({ code: 'proposer.output_cap', message: `the proposer wrote more than ${outputCap} bytes and was killed` });
      if (result.killed === 'aborted') throw new ProposerError({ code: 'proposer.aborted', message: 'the run stopped while the proposer was running' });
      if (result.exitCode !== 0) {
        throw new ProposerError({ code: 'proposer.exit_nonzero', message: `the proposer exited ${result.exitCode ?? `by signal ${result.signal}`}`, output: result.stderr });
      }
      try {
        // The loop validates every proposal against the protocol.
        return JSON.parse(result.stdout) as Proposal;
      } catch {
        throw new ProposerError({ code: 'proposer.bad_json', message: 'the proposer did not print one JSON object on stdout', output: result.stdout });
      }
    },
  };
}
