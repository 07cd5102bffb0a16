import { commandIdentity } from '../core/command-identity.js';
import { recordedCommand } from '../core/redact-command.js';
import { ProposerError } from '../errors/proposer-error.js';
import { runProcess } from '../process/run-process.js';
import { processAccount } from './process-account.js';
import { processFailure } from './process-failure.js';
import { PROPOSER_PROTOCOL, type Proposal, type Proposer } from './proposer.js';

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
 * stdin, one JSON proposal on stdout. Every proposal and error carries the program's account (exit
 * status, time, the tails of stdout and stderr), whatever `account` the program printed itself.
 */
export function commandProposer({
  command,
  cwd,
  timeoutMs = 600_000,
  outputCap = 4_194_304,
  reportsTokens = false,
  reportsCost = false,
}: CommandProposerOptions): Proposer {
  // What is recorded of the command: secrets redacted, and for the plan what stays the same from run to run.
  const name = recordedCommand(command);
  return {
    name,
    capabilities: { reportsTokens, reportsCost },
    // The program renders its own prompt from the request: the request format is what redline controls.
    identity: { kind: 'command', name: commandIdentity(name), template: PROPOSER_PROTOCOL },
    async propose(request, { signal, sandbox }) {
      const result = await runProcess({
        command,
        cwd,
        input: JSON.stringify(request),
        timeoutMs,
        outputCap,
        signal,
        // In the sandbox the workspace (its cwd) is read-only: the protocol's answer is stdout.
        ...(sandbox === undefined ? {} : { sandbox: { kind: sandbox.kind, writable: [], network: sandbox.network } }),
      });
      const account = processAccount({ kind: 'command', result });
      const failure = processFailure({ command, result, timeoutMs, outputCap, who: 'proposer', account });
      if (failure !== undefined) throw failure;
      let answer: unknown;
      try {
        answer = JSON.parse(result.stdout);
      } catch {
        answer = undefined;
      }
      if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
        throw new ProposerError({
          code: 'proposer.bad_json',
          message: 'the proposer did not print one JSON object on stdout',
          output: result.stdout,
          account,
        });
      // The loop validates every proposal against the protocol; the account is the runtime's, never the program's.
      return { ...answer, account } as Proposal;
    },
  };
}
