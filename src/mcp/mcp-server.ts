import type { Readable, Writable } from 'node:stream';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MissingPeerError } from '../errors/missing-peer-error.js';
import type { ChecksAnswer, RunAnswer, StatusAnswer } from './answers.js';
import { agentText } from './agent-text.js';
import { McpSession, type McpSessionOptions } from './mcp-session.js';

export interface ServeMcpOptions extends Omit<McpSessionOptions, 'agent'> {
  /** Where the client's messages come from; the server stops when it ends. @default process.stdin */
  readonly input?: Readable;
  /** Where the server's messages go: nothing else may write there. @default process.stdout */
  readonly output?: Writable;
  /**
   * How often a call that is still running sends a progress notification, when its client asked for
   * progress (a `progressToken`): clients that reset their request timeout on progress then wait for long checks.
   * @default 10000
   */
  readonly progressIntervalMs?: number;
  /** Called once the SDK is loaded, the baseline taken and the server connected. */
  readonly onServing?: () => void;
}

const RUN_ID = z.string().min(1).max(200).optional().describe("the id of this session's run (optional: a session has one run)");

const TOOLS = {
  checks:
    "Run the mission's checks on your working copy now, in an isolated copy (nothing is recorded). Returns passed, the changed paths and the normalized findings, failing ones first.",
  submit:
    'Propose your working copy as the next attempt of a recorded run (the first submit starts the run). The checks and the guards decide: continue (the findings and the budgets left) or stop (the sealed outcome, verification and stop reason). Only the checks decide: nothing you say can complete a run.',
  status: 'Where a run stands: its attempts, the budgets left, the latest findings, and its outcome once sealed.',
} as const;

function summaryOf(answer: ChecksAnswer | RunAnswer | StatusAnswer): string {
  const failing = 'findings' in answer ? answer.findings.filter((item) => item.status === 'fail' || item.status === 'error').length : 0;
  if ('passed' in answer) return answer.passed ? 'passed: every required check passed' : `not passed: ${failing} failing finding(s)`;
  const sealed = 'outcome' in answer ? `run ${answer.runId} sealed ${answer.outcome} / ${answer.verification} (${answer.stopReason})` : '';
  if ('decision' in answer)
    return answer.decision === 'stop'
      ? `stop: ${sealed}`
      : `continue: attempt ${answer.attempt} of run ${answer.runId} did not pass (${agentText(answer.reason, 200)}), ${failing} failing finding(s); ${answer.budgetsLeft.attempts} attempt(s) left`;
  if (answer.state === 'none') return 'no run yet: the first redline_submit starts one';
  return answer.state === 'sealed' ? sealed : `run ${answer.runId} open after ${answer.attempts} attempt(s)`;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** While a call runs: a progress notification every `intervalMs`, when the client asked for progress. */
function heartbeat(extra: Extra, intervalMs: number): () => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return () => undefined;
  let progress = 0;
  const timer = setInterval(() => {
    progress += 1;
    const params = { progressToken, progress, message: 'checks running' };
    extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
  }, intervalMs);
  return () => clearInterval(timer);
}

/** A tool's result: a summary line and the answer as JSON, and the answer as structured content. */
async function answer(call: () => Promise<ChecksAnswer | RunAnswer | StatusAnswer>, extra: Extra, intervalMs: number) {
  const stop = heartbeat(extra, intervalMs);
  try {
    const result = await call();
    return {
      content: [{ type: 'text' as const, text: `${summaryOf(result)}\n${JSON.stringify(result, null, 2)}` }],
      structuredContent: { ...result },
    };
  } catch (error) {
    return { isError: true, content: [{ type: 'text' as const, text: agentText(error instanceof Error ? error.message : String(error)) }] };
  } finally {
    stop();
  }
}

/**
 * Serves the mission's red lines to an agent as MCP tools over stdio (`redline_checks`, `redline_submit`,
 * `redline_status`), until the client closes its end (or the process is asked to stop): the open run is
 * then sealed `aborted` and the session's baseline removed. The SDK is an optional peer, loaded here.
 * @throws {MissingPeerError} when `@modelcontextprotocol/sdk` is not installed.
 */
export async function serveMcp({
  input = process.stdin,
  output = process.stdout,
  progressIntervalMs = 10_000,
  onServing,
  ...options
}: ServeMcpOptions): Promise<void> {
  if (!Number.isInteger(progressIntervalMs) || progressIntervalMs < 1)
    throw new TypeError(`Expected progressIntervalMs to be a positive integer, got ${String(progressIntervalMs)}`);
  const peer = { packageName: '@modelcontextprotocol/sdk', purpose: 'serve redline mcp' };
  const { McpServer } = await MissingPeerError.load(() => import('@modelcontextprotocol/sdk/server/mcp.js'), peer);
  const { StdioServerTransport } = await MissingPeerError.load(() => import('@modelcontextprotocol/sdk/server/stdio.js'), peer);
  const server = new McpServer({ name: 'redline', version: '0.1.0' });
  // The baseline is taken now, before the agent changes anything; the client's name is read at each run's start.
  const session = await McpSession.open({ ...options, agent: () => server.server.getClientVersion()?.name });
  const runId = { runId: RUN_ID };
  server.registerTool('redline_checks', { description: TOOLS.checks, annotations: { readOnlyHint: true } }, (extra) =>
    answer(() => session.checks(extra.signal), extra, progressIntervalMs),
  );
  server.registerTool('redline_submit', { description: TOOLS.submit, inputSchema: runId }, (args, extra) =>
    answer(() => session.submit(args), extra, progressIntervalMs),
  );
  server.registerTool(
    'redline_status',
    { description: TOOLS.status, inputSchema: runId, annotations: { readOnlyHint: true } },
    (args, extra) => answer(() => session.status(args), extra, progressIntervalMs),
  );
  let stop = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const signals = ['SIGTERM', 'SIGINT'] as const;
  input.once('end', stop).once('close', stop);
  for (const signal of signals) process.once(signal, stop);
  try {
    await server.connect(new StdioServerTransport(input, output));
    onServing?.();
    await stopped;
  } finally {
    for (const signal of signals) process.off(signal, stop);
    input.off('end', stop).off('close', stop);
    await session.close();
    await server.close();
  }
}
