import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MissingPeerError } from '../errors/missing-peer-error.js';
import { TOOLS } from './tools.js';

// `redline mcp`'s end of stdio. Clients give a server about a second from spawn to its answers to
// `initialize` and `tools/list` (Codex starts the model's first turn with the tools of the servers ready by
// then), while the SDK, the mission schema and the loop take longer than that to load on a busy machine.
// So the front answers the handshake itself, from plain data, the moment it arrives; every other message
// waits in order for the SDK's server, which connects to the front as its transport once it is loaded.
// Nothing here imports the SDK at run time: its types only.

/** Protocol versions the front agrees to, newest first: the SDK's own (test/mcp/stdio-front.test.ts compares them). */
export const PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

/** JSON-RPC's code for a method the server does not have. */
const METHOD_NOT_FOUND = -32601;

/** JSON-RPC's code for a request that is not valid where it stands: here, one sent before `initialize`. */
const INVALID_REQUEST = -32600;

/** The server's name and version, as `initialize` answers them. */
export const SERVER_INFO = Object.freeze({ name: 'redline', version: '0.1.0' });

/** The optional peer the server needs. */
export const SDK = { packageName: '@modelcontextprotocol/sdk', purpose: 'serve redline mcp' } as const;

/**
 * Refuses to start without the SDK, before the front answers anything: it is resolved, not loaded (the
 * SDK ships CommonJS too, so `require`'s resolution finds it wherever `import` would; it also works in
 * the CLI bundle, a CommonJS script).
 * @throws {MissingPeerError} when `@modelcontextprotocol/sdk` is not installed.
 */
export function assertSdkInstalled(): void {
  try {
    createRequire(import.meta.url).resolve(`${SDK.packageName}/server/index.js`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') throw new MissingPeerError({ ...SDK, cause: error });
    throw error;
  }
}

/** Who the client says it is, in its `initialize`. */
export interface ClientInfo {
  readonly name?: string;
  readonly version?: string;
}

type Message = { readonly jsonrpc?: unknown; readonly id?: unknown; readonly method?: unknown; readonly params?: unknown };

function settled<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** The answer to `initialize`: the client's protocol version when the front speaks it, else the newest. */
function initializeResult(params: unknown): Record<string, unknown> {
  const requested = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  return {
    protocolVersion: typeof requested === 'string' && PROTOCOL_VERSIONS.includes(requested) ? requested : PROTOCOL_VERSIONS[0],
    capabilities: { tools: {} },
    serverInfo: SERVER_INFO,
  };
}

function clientInfoOf(params: unknown): ClientInfo {
  const info = (params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)?.clientInfo;
  return {
    ...(typeof info?.name === 'string' ? { name: info.name } : {}),
    ...(typeof info?.version === 'string' ? { version: info.version } : {}),
  };
}

/**
 * Newline-delimited JSON-RPC over a pair of streams (stdin and stdout), answering `initialize`, `ping`,
 * `tools/list` and methods nobody serves at once, and handing tool calls and notifications, in order, to
 * the server connected to it (an SDK `Server`: the front is its {@link Transport}). Messages that arrive
 * before the server connects wait for it; requests before `initialize` (but `ping`) are refused.
 */
export class StdioFront implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #input: Readable;
  readonly #output: Writable;
  #buffer = '';
  /** Messages for the server, until it connects. */
  #waiting: JSONRPCMessage[] | undefined = [];
  readonly #client = settled<ClientInfo | undefined>();
  readonly #ended = settled<void>();
  readonly #listed = settled<void>();
  /** Whether `initialize` was answered: before it, only `ping` is served. */
  #initialized = false;
  #quiet: NodeJS.Timeout | undefined;
  /** While {@link handshake} waits: restarts its quiet period. */
  #onQuiet: (() => void) | undefined;
  #closed = false;

  constructor({ input, output }: { input: Readable; output: Writable }) {
    this.#input = input;
    this.#output = output;
    input.on('data', this.#onData).on('error', this.#onError).once('end', this.#onEnd).once('close', this.#onEnd);
  }

  /** Who the client is, once its `initialize` came; undefined when the input ended first. */
  get client(): Promise<ClientInfo | undefined> {
    return this.#client.promise;
  }

  /** Settles when the client closed its end (the input ended or closed), or the front was closed. */
  get ended(): Promise<void> {
    return this.#ended.promise;
  }

  /**
   * Settles when the handshake is over: the client listed the tools, or `quietMs` went by without a
   * message from it, or its end closed. What loads after this cannot delay the client's first answers.
   */
  handshake({ quietMs = 100 }: { quietMs?: number } = {}): Promise<void> {
    const quiet = settled<void>();
    const wait = (): void => {
      clearTimeout(this.#quiet);
      this.#quiet = setTimeout(quiet.resolve, quietMs);
    };
    wait();
    this.#onQuiet = wait;
    return Promise.race([this.#listed.promise, this.#ended.promise, quiet.promise]).finally(() => {
      clearTimeout(this.#quiet);
      this.#onQuiet = undefined;
    });
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#buffer += chunk.toString();
    for (let end = this.#buffer.indexOf('\n'); end !== -1; end = this.#buffer.indexOf('\n')) {
      const line = this.#buffer.slice(0, end).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(end + 1);
      if (line.trim() !== '') this.#receive(line);
    }
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onEnd = (): void => {
    this.#client.resolve(undefined);
    this.#ended.resolve();
  };

  #receive(line: string): void {
    this.#onQuiet?.();
    let message: Message;
    try {
      message = JSON.parse(line) as Message;
    } catch (error) {
      this.onerror?.(new Error(`a line that is not JSON: ${(error as Error).message}`));
      return;
    }
    const answer = this.#answer(message);
    if (answer !== undefined) {
      void this.#write({ jsonrpc: '2.0', id: message.id, ...answer });
      return;
    }
    if (this.#waiting !== undefined) this.#waiting.push(message as JSONRPCMessage);
    else this.onmessage?.(message as JSONRPCMessage);
  }

  /**
   * The front's own answer to a request: the handshake's, and "method not found" for every method the
   * server does not serve (a client probing for newer ones, `server/discover`, learns it at once); undefined
   * for a tool call and for every notification, which the server handles. Before `initialize`, as the
   * protocol's lifecycle has it, every request but `ping` is refused (Invalid Request): no tool runs for a
   * client that has not said who it is.
   */
  #answer({ id, method, params }: Message): { result: unknown } | { error: unknown } | undefined {
    if (typeof id !== 'string' && typeof id !== 'number') return undefined;
    if (!this.#initialized && method !== 'initialize' && method !== 'ping')
      return { error: { code: INVALID_REQUEST, message: 'Invalid Request: the server is not initialized; send initialize first' } };
    switch (method) {
      case 'initialize':
        this.#initialized = true;
        this.#client.resolve(clientInfoOf(params));
        return { result: initializeResult(params) };
      case 'ping':
        return { result: {} };
      case 'tools/list':
        this.#listed.resolve();
        return { result: { tools: TOOLS } };
      case 'tools/call':
        return undefined;
      default:
        return { error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
    }
  }

  async #write(message: unknown): Promise<void> {
    if (this.#closed) return;
    if (!this.#output.write(`${JSON.stringify(message)}\n`)) await new Promise((drained) => this.#output.once('drain', drained));
  }

  /** The server connected: what waited for it is handed over, in order. */
  async start(): Promise<void> {
    const waiting = this.#waiting ?? [];
    this.#waiting = undefined;
    for (const message of waiting) this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  /** Stops reading (the input is paused, so it no longer keeps the process alive) and writing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#quiet);
    this.#input.off('data', this.#onData).off('error', this.#onError).off('end', this.#onEnd).off('close', this.#onEnd);
    this.#input.pause();
    this.#onEnd();
    this.onclose?.();
  }
}
