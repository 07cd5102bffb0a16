import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { MissingPeerError } from '../errors/missing-peer-error.js';
import { answerText, type Answer } from './answers.js';
import { agentText } from './agent-text.js';
import { McpSession, type McpSessionOptions } from './mcp-session.js';
import { SDK, SERVER_INFO, type StdioFront } from './stdio-front.js';
import { runIdOf, type ToolName } from './tools.js';

export interface ServeMcpOptions extends Omit<McpSessionOptions, 'agent'> {
  /** The connection to the client, which has answered the handshake since it was opened. */
  readonly front: StdioFront;
  /** Ends the session when it settles (a signal), as the client closing its end does. */
  readonly stop?: Promise<unknown>;
  /**
   * How often a call that is still running sends a progress notification, when its client asked for
   * progress (a `progressToken`): clients that reset their request timeout on progress then wait for long checks.
   * @default 10000
   */
  readonly progressIntervalMs?: number;
  /** Called once the SDK is loaded, the session open (its baseline taken, its run started) and the server connected. */
  readonly onServing?: () => void;
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

/** A tool's result: the answer's text (a summary line and the JSON), and the answer as structured content. */
async function answer(call: () => Promise<Answer>, extra: Extra, intervalMs: number) {
  const stop = heartbeat(extra, intervalMs);
  try {
    const result = await call();
    return { content: [{ type: 'text' as const, text: answerText(result) }], structuredContent: { ...result } };
  } catch (error) {
    return { isError: true, content: [{ type: 'text' as const, text: agentText(error instanceof Error ? error.message : String(error)) }] };
  } finally {
    stop();
  }
}

/**
 * Serves the mission's red lines to the agent on `front` (`redline_checks`, `redline_submit`,
 * `redline_status`), until the client closes its end or `stop` settles: the open run is then sealed
 * `aborted` and the session's directories removed. The SDK is an optional peer, loaded here; the
 * session opens once the client has said who it is (its name is part of the run's plan).
 * @throws {MissingPeerError} when `@modelcontextprotocol/sdk` is not installed.
 */
export async function serveMcp({
  front,
  stop = new Promise(() => undefined),
  progressIntervalMs = 10_000,
  onServing,
  ...options
}: ServeMcpOptions): Promise<void> {
  if (!Number.isInteger(progressIntervalMs) || progressIntervalMs < 1)
    throw new TypeError(`Expected progressIntervalMs to be a positive integer, got ${String(progressIntervalMs)}`);
  const { Server } = await MissingPeerError.load(() => import('@modelcontextprotocol/sdk/server/index.js'), SDK);
  const { CallToolRequestSchema } = await MissingPeerError.load(() => import('@modelcontextprotocol/sdk/types.js'), SDK);
  const ended = Promise.race([front.ended, stop]);
  const client = await Promise.race([front.client, ended.then(() => undefined)]);
  if (client === undefined) return;
  // Calls are served from now on; each waits for the session (its snapshot), sending progress meanwhile.
  const opening = McpSession.open({ ...options, ...(client.name === undefined ? {} : { agent: client.name }) });
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} } });
  const calls: Record<ToolName, (session: McpSession, args: Record<string, unknown> | undefined, extra: Extra) => Promise<Answer>> = {
    redline_checks: (session, _args, extra) => session.checks(extra.signal),
    redline_submit: async (session, args) => session.submit({ runId: runIdOf(args) }),
    redline_status: async (session, args) => session.status({ runId: runIdOf(args) }),
  };
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const call = Object.hasOwn(calls, request.params.name) ? calls[request.params.name as ToolName] : undefined;
    if (call === undefined) return { isError: true, content: [{ type: 'text', text: `no tool ${agentText(request.params.name, 200)}` }] };
    return answer(async () => call(await opening, request.params.arguments, extra), extra, progressIntervalMs);
  });
  try {
    await server.connect(front);
    const session = await opening;
    try {
      onServing?.();
      await ended;
    } finally {
      await session.close();
    }
  } finally {
    await server.close();
  }
}
