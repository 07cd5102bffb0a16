import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { commandIdentity } from '../core/command-identity.js';
import { recordedCommand } from '../core/redact-command.js';
import { ProposerError } from '../errors/proposer-error.js';
import { upstreamUrl } from '../metering/meter.js';
import { processTemporary } from '../process/process-temporary.js';
import { inheritedEnv, runProcess } from '../process/run-process.js';
import { AGENT_PROMPT_TEMPLATE, agentPrompt } from './agent-prompt.js';
import { spendError, watchSpend, type AgentMeterOptions } from './agent-spend.js';
import { watchEnvironment, type AgentErrors } from './environment-watch.js';
import { readTail, TRANSCRIPT_TAIL_BYTES } from './output-tail.js';
import { processAccount } from './process-account.js';
import { processFailure } from './process-failure.js';
import type { Proposal, Proposer } from './proposer.js';

export interface AgentProposerOptions {
  /** argv array, or a string run by `/bin/sh -c`; it runs in a private copy and edits files there. */
  readonly command: string | readonly string[];
  /** Per-attempt limit; the run's wall-clock budget applies as well. @default 600000 */
  readonly timeoutMs?: number;
  /** Bytes of stdout and of stderr kept; more is a `proposer.output_cap` error. @default 4194304 */
  readonly outputCap?: number;
  /** Bytes of changed file content one attempt may propose; more is a `proposer.output_cap` error. @default 16777216 */
  readonly maxChangeBytes?: number;
  /** Whether the agent writes token usage to `$REDLINE_USAGE_FILE`; a token budget needs it. */
  readonly reportsTokens?: boolean;
  /** Whether the agent writes `costUsd` to `$REDLINE_USAGE_FILE`; a cost budget needs it. */
  readonly reportsCost?: boolean;
  /** Variables added to the agent's environment (for example a model endpoint). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Run each attempt's model calls through a metering endpoint standing in for this upstream: it counts and
   * prices them, and ends the agent when the run's token or cost budget is spent (docs/metering.md). The
   * proposer then reports tokens and cost.
   */
  readonly meter?: AgentMeterOptions;
  /** What the run records as the proposer's name. @default `agent:<the command as recorded>` */
  readonly name?: string;
  /** The proposer's name in the run's plan. @default the command's identity (`commandIdentity`) */
  readonly planName?: string;
  /**
   * Reads the agent's transcript and stderr, line by line while it runs, for its own error messages: the
   * first that shows a failure of its environment (its endpoint out of reach, its key refused) ends the
   * agent, and the attempt fails with `proposer.environment`, which blocks the run; the last one is said in
   * the finding of an agent that exited non-zero (an agent preset's, docs/agents.md#presets).
   */
  readonly errors?: AgentErrors;
}

/** Longest prompt passed in `REDLINE_PROMPT` (Linux refuses one variable over 128 KiB); the file holds it all. */
const PROMPT_ENV_BYTES = 65_536;

/** The prompt for the environment: whole when it fits, else cut, saying where the rest is. */
function promptVariable(prompt: string): string {
  if (Buffer.byteLength(prompt) <= PROMPT_ENV_BYTES) return prompt;
  const cut = Buffer.from(prompt)
    .subarray(0, PROMPT_ENV_BYTES - 200)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return `${cut}\n\n… (cut here: the whole prompt is in $REDLINE_PROMPT_FILE)`;
}

async function readUsage(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProposerError({ code: 'proposer.bad_output', message: 'the agent wrote a usage file that is not JSON', output: text });
  }
}

/**
 * Drives a program that edits files in place — a CLI coding agent — as a proposer. Each attempt it runs in
 * a private copy holding exactly snapshot + the latest candidate, never in the user's workspace; what it
 * changed there (deleted files included, ignored paths excluded) is its proposal. It finds the request in
 * files and variables (docs/agents.md):
 * `REDLINE_PROMPT` / `REDLINE_PROMPT_FILE` (goal, scope and failing findings as Markdown),
 * `REDLINE_REQUEST_FILE` (the `redline.proposer/1` request as JSON), `REDLINE_GOAL`, `REDLINE_ATTEMPT`,
 * and may write `{"inputTokens","outputTokens","costUsd"}` to `REDLINE_USAGE_FILE` (or append such lines to
 * `REDLINE_USAGE_LOG` as it goes) and its transcript to `REDLINE_TRANSCRIPT`. Exit 0 means done. With a `meter`,
 * its model calls go through a metering endpoint (`REDLINE_METER_URL`, `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`);
 * the meter, or the usage log, ends it when the run's token or cost budget is spent (docs/metering.md). Every
 * proposal and error carries the agent's account: its exit status, time, the tails of its stdout, stderr and
 * transcript, and its metered model calls.
 * @throws {TypeError} for a meter whose upstream is not an http(s) URL.
 */
export function agentProposer({
  command,
  timeoutMs = 600_000,
  outputCap = 4_194_304,
  maxChangeBytes = 16_777_216,
  reportsTokens = false,
  reportsCost = false,
  env = {},
  meter,
  name,
  planName,
  errors,
}: AgentProposerOptions): Proposer {
  // What is recorded of the command: secrets redacted, and for the plan what stays the same from run to run.
  const line = recordedCommand(command);
  if (meter !== undefined) upstreamUrl(meter.upstream);
  const metered = meter !== undefined;
  return {
    name: name ?? `agent:${line}`,
    capabilities: { reportsTokens: reportsTokens || metered, reportsCost: reportsCost || metered },
    identity: { kind: 'agent', name: planName ?? commandIdentity(line), template: AGENT_PROMPT_TEMPLATE },
    async propose(request, { signal, workspace, sandbox }) {
      if (workspace === undefined)
        throw new ProposerError({ code: 'proposer.no_workspace', message: 'an agent proposer edits files: the mission needs a workspace' });
      const dir = await workspace.prepare(request.state.candidate?.files ?? {});
      // The request files live outside the copy, so they never show up in the agent's changes.
      const io = processTemporary('agent');
      try {
        const prompt = agentPrompt(request);
        const files = {
          request: path.join(io, 'request.json'),
          prompt: path.join(io, 'prompt.md'),
          usage: path.join(io, 'usage.json'),
          usageLog: path.join(io, 'usage.jsonl'),
          transcript: path.join(io, 'transcript.log'),
        };
        await writeFile(files.request, JSON.stringify(request));
        await writeFile(files.prompt, prompt);
        const { budgetsLeft } = request.state;
        const watch = await watchSpend({ meter, budgetsLeft, usageLog: files.usageLog });
        const surroundings = watchEnvironment(files.transcript, errors);
        const variables = {
          ...inheritedEnv(),
          ...env,
          ...watch.env,
          REDLINE_PROMPT: promptVariable(prompt),
          REDLINE_PROMPT_FILE: files.prompt,
          REDLINE_REQUEST_FILE: files.request,
          REDLINE_USAGE_FILE: files.usage,
          REDLINE_TRANSCRIPT: files.transcript,
          REDLINE_GOAL: request.mission.goal,
          REDLINE_ATTEMPT: String(request.attempt),
        };
        const result = await runProcess({
          command,
          cwd: dir,
          timeoutMs,
          outputCap,
          // The run's stop, the attempt's spend reaching a budget, or a failure of its environment ends the agent.
          signal: AbortSignal.any([signal, watch.signal, surroundings.signal]),
          env: variables,
          onOutput: (stream, chunk) => {
            if (stream === 'stderr') surroundings.stderr(chunk);
          },
          ...(sandbox === undefined ? {} : { sandbox: { kind: sandbox.kind, writable: [dir, io], network: sandbox.network } }),
        }).catch(async (error: unknown) => {
          await watch.finish();
          await surroundings.finish();
          throw error;
        });
        const spent = await watch.finish();
        const { environment, lastError } = await surroundings.finish();
        const account = {
          ...processAccount({ kind: 'agent', result, transcript: await readTail(files.transcript, TRANSCRIPT_TAIL_BYTES) }),
          // Killed for its spend, not for the run's stop: the signal that ended it was the attempt's.
          ...(result.killed === 'aborted' && !signal.aborted && spent.ended !== undefined ? { killed: 'budget' as const } : {}),
          ...(result.killed === 'aborted' && !signal.aborted && spent.ended === undefined && environment !== undefined
            ? { killed: 'environment' as const }
            : {}),
          ...(spent.meter === undefined ? {} : { meter: spent.meter }),
        };
        // What the agent spent is charged even when its attempt fails; a malformed report fails a good attempt.
        // The meter's count is not the agent's to report; without a meter, its usage file is its final word, else its log's lines.
        let usage: unknown = spent.meter === undefined ? undefined : spent.usage;
        let badUsage: ProposerError | undefined;
        if (spent.meter === undefined) {
          try {
            usage = (await readUsage(files.usage)) ?? spent.usage;
          } catch (error) {
            badUsage = error as ProposerError;
            usage = spent.usage;
          }
          if (spent.problem !== undefined)
            badUsage ??= new ProposerError({
              code: 'proposer.bad_output',
              message: `the agent's usage log is not usable: ${spent.problem}`,
            });
        }
        const failed = (error: ProposerError): ProposerError =>
          new ProposerError({
            code: error.code,
            message: error.message,
            ...(error.output === undefined ? {} : { output: error.output }),
            ...(usage === undefined ? {} : { usage }),
            account,
          });
        // Ended by its spend, the agent may have exited on its own at the refusal: the budget is why it stopped.
        if (spent.ended !== undefined) throw failed(spendError({ ...spent, ended: spent.ended }, budgetsLeft));
        // Its endpoint out of reach or its key refused: every attempt would meet the same (the run blocks on it).
        if (environment !== undefined && (surroundings.signal.aborted || result.exitCode !== 0))
          throw failed(new ProposerError({ code: 'proposer.environment', message: environment }));
        const failure = processFailure({ command, result, timeoutMs, outputCap, who: 'agent', account });
        // Its own last error message says why it exited non-zero (Claude Code says it only in its transcript).
        if (failure?.code === 'proposer.exit_nonzero' && lastError !== undefined)
          throw failed(new ProposerError({ code: failure.code, message: `${failure.message}: ${lastError}`, output: result.stderr }));
        if (failure !== undefined) throw failed(failure);
        let changes: Record<string, string | null>;
        try {
          changes = await workspace.changes({ maxBytes: maxChangeBytes });
        } catch (error) {
          if (error instanceof RangeError)
            throw failed(
              new ProposerError({
                code: 'proposer.output_cap',
                message: `the agent changed more than the ${maxChangeBytes} bytes of files allowed: ${error.message}`,
              }),
            );
          throw failed(
            new ProposerError({
              code: 'proposer.bad_output',
              message: `the agent's changes cannot be a candidate: ${(error as Error).message}`,
            }),
          );
        }
        if (badUsage !== undefined) throw failed(badUsage);
        // The loop validates every proposal (shape, usage, paths) like any other.
        return { files: changes, ...(usage === undefined ? {} : { usage }), account } as Proposal;
      } finally {
        await rm(io, { recursive: true, force: true });
      }
    },
  };
}
