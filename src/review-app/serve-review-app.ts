import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { reviewApp, type ReviewAppOptions } from './review-app.js';

/** A running reviewer web app. */
export interface ReviewServer {
  /** `http://host:port`, as a browser on this machine reaches it. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections and ends the open ones. */
  close(): Promise<void>;
}

/** How long the server waits on a connection, and how many it keeps open at once. */
export interface ConnectionLimits {
  /** A request's headers must all arrive within this. @default 10_000 */
  readonly headersTimeoutMs?: number;
  /** A whole request (headers and body) must arrive within this. @default 30_000 */
  readonly requestTimeoutMs?: number;
  /** A kept-alive connection with no new request is closed after this. @default 5_000 */
  readonly keepAliveTimeoutMs?: number;
  /** A connection on which nothing is sent or received is closed after this. @default 30_000 */
  readonly idleTimeoutMs?: number;
  /** Connections open at once; one more is closed as it arrives. @default 256 */
  readonly maxConnections?: number;
}

/** The limits a server has unless told otherwise. */
export const CONNECTION_LIMITS: Required<ConnectionLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  maxConnections: 256,
});

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`Expected ${name} to be a positive integer, got ${value}`);
  return value;
}

/** Host names that only this machine reaches. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * The host names a request may name: this machine's loopback names when bound to loopback or to every
 * address, the bound address itself, and `extra` (the names the server is reached by, `--host-name`).
 */
export function servedHostNames(host: string, extra: readonly string[] = []): readonly string[] {
  const wildcard = host === '0.0.0.0' || host === '::';
  const own = host.includes(':') ? `[${host}]` : host;
  return [...new Set([...(isLoopback(host) || wildcard ? ['localhost', '127.0.0.1', '[::1]'] : []), ...(wildcard ? [] : [own]), ...extra])];
}

/**
 * Serves the reviewer web app on `host:port` (loopback and a free port by default). The queue and ledger
 * stay the caller's to close. Only requests naming one of {@link servedHostNames} are answered.
 * @example
 * const server = await serveReviewApp({ queue, startToken: generateToken() });
 */
export async function serveReviewApp({
  host = '127.0.0.1',
  port = 0,
  connections = {},
  ...options
}: ReviewAppOptions & { host?: string; port?: number; connections?: ConnectionLimits }): Promise<ReviewServer> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new TypeError(`Expected a port between 0 and 65535, got ${port}`);
  const limits = { ...CONNECTION_LIMITS, ...connections };
  for (const [name, value] of Object.entries(limits)) positive(name, value);
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new TypeError(
      `Expected headersTimeoutMs to be at most requestTimeoutMs, got ${limits.headersTimeoutMs} > ${limits.requestTimeoutMs}`,
    );
  const app = reviewApp({ ...options, hostNames: servedHostNames(host, options.hostNames) });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve(
      {
        fetch: app.fetch,
        hostname: host,
        port,
        serverOptions: {
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: limits.requestTimeoutMs,
          keepAliveTimeout: limits.keepAliveTimeoutMs,
          // How often Node looks for requests past their header or request timeout.
          connectionsCheckingInterval: Math.min(1_000, Math.ceil(limits.headersTimeoutMs / 4)),
        },
      },
      () => resolve(started),
    );
    started.once('error', reject);
  });
  // With no 'timeout' listener, Node destroys a socket idle this long; one over the cap is closed on arrival.
  server.setTimeout(limits.idleTimeoutMs);
  server.maxConnections = limits.maxConnections;
  const address = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  return {
    url: `http://${shown}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
